import { readFileSync } from 'node:fs';
import { defaultExecutorKinds } from '../registry/executors/index.ts';
import { parseManifestText, type ManifestLoadOptions, type ManifestLoadResult } from '../registry/manifest-loader.ts';
import { builtinsForUncheckedManifest } from '../tools/tenant-tools.ts';
import { createSchemaValidator } from '../validation/select-engine.ts';

/** The gateway's own executor kinds and builtins, to check manifests as it will. */
export function manifestLoadOptions(): ManifestLoadOptions {
  return { validator: createSchemaValidator(), kinds: defaultExecutorKinds(), builtins: builtinsForUncheckedManifest };
}

/** Reads and checks a manifest file with the gateway's own executor kinds and builtins. */
export function loadManifestFile(path: string): ManifestLoadResult {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    return { ok: false, problems: [{ path: '$', message: `cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}` }] };
  }
  return parseManifestText(text, manifestLoadOptions());
}
