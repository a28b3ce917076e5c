import { readFileSync } from 'node:fs';
import { celConditionEngine } from '../governance/conditions/cel-engine.ts';
import { useConditionEngine } from '../governance/conditions/condition.ts';
import { SecretGrants, TENANT_SECRETS_VARIABLE } from '../crypto/secret-grants.ts';
import { EGRESS_ALLOW_VARIABLE } from '../egress/allowlist.ts';
import { EgressPolicy } from '../egress/policy.ts';
import { defaultExecutorKinds } from '../registry/executors/index.ts';
import { parseManifestText, type ManifestLoadOptions, type ManifestLoadResult } from '../registry/manifest/loader.ts';
import { builtinsForUncheckedManifest } from '../tools/tenant-tools.ts';
import { createSchemaValidator } from '../validation/select-engine.ts';

/**
 * The gateway's own executor kinds and builtins, to check manifests as it will; with `env`, also
 * its secret grants and egress allowlist, each where `env` sets it (throws SecretGrantsError or
 * EgressAllowError when one cannot be read).
 */
export function manifestLoadOptions(env: Readonly<Record<string, string | undefined>> = {}): ManifestLoadOptions {
  const confinement = {
    secretGrants: env[TENANT_SECRETS_VARIABLE] !== undefined ? SecretGrants.fromEnv(env) : undefined,
    egress: env[EGRESS_ALLOW_VARIABLE] !== undefined ? EgressPolicy.fromEnv(env) : undefined,
  };
  return { validator: createSchemaValidator(), kinds: defaultExecutorKinds(), builtins: builtinsForUncheckedManifest, confinement };
}

// The CLI checks manifest files as a publish does, rule conditions included: it loads the CEL engine
// with this module (the gateway loads it only for a manifest or a call that has a condition).
useConditionEngine(celConditionEngine());

/** Reads and checks a manifest file with the gateway's own executor kinds and builtins (and `options`' checks). */
export function loadManifestFile(path: string, options: ManifestLoadOptions = manifestLoadOptions()): ManifestLoadResult {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    return { ok: false, problems: [{ path: '$', message: `cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}` }] };
  }
  return parseManifestText(text, options);
}
