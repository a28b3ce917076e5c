import { readFileSync } from 'node:fs';
import { loadConditionEngine } from '../governance/conditions/condition.ts';
import { hasRuleConditions } from '../registry/rule-conditions-check.ts';
import { SecretGrants, TENANT_SECRETS_VARIABLE } from '../crypto/secret-grants.ts';
import { EGRESS_ALLOW_VARIABLE } from '../egress/allowlist.ts';
import { EgressPolicy } from '../egress/policy.ts';
import { defaultExecutorKinds } from '../registry/executors/index.ts';
import { parseManifestText, type ManifestLoadOptions, type ManifestLoadResult } from '../registry/manifest-loader.ts';
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

/** loadManifestFile, loading the CEL engine first when the file's rules have conditions (it is loaded only then). */
export async function loadManifestFileWithConditions(path: string, options: ManifestLoadOptions = manifestLoadOptions()): Promise<ManifestLoadResult> {
  let document: unknown;
  try {
    document = JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    document = undefined; // loadManifestFile reports what is wrong with the file
  }
  if (hasRuleConditions(document)) await loadConditionEngine();
  return loadManifestFile(path, options);
}

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
