import { canonicalJson } from '../idempotency/canonical-json.ts';
import type { Manifest, ManifestTool } from './manifest.ts';

export interface ManifestDiff {
  added: string[];
  removed: string[];
  /** Tools in both, with the fields that differ. */
  changed: Array<{ name: string; fields: string[] }>;
  /** Top-level settings that differ (policy, profile, approvals, execution_environment, ...). */
  settings: string[];
}

const fieldsOf = (tool: ManifestTool) => tool as unknown as Record<string, unknown>;

function differingKeys(a: Record<string, unknown>, b: Record<string, unknown>, skip: string[] = []): string[] {
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].filter((k) => !skip.includes(k)).sort();
  return keys.filter((key) => canonicalJson(a[key] ?? null) !== canonicalJson(b[key] ?? null));
}

/** What changes from version `from` to version `to`: tools added, removed and changed (by field). */
export function diffManifests(from: Manifest, to: Manifest): ManifestDiff {
  const before = new Map(from.tools.map((t) => [t.name, t]));
  const after = new Map(to.tools.map((t) => [t.name, t]));
  return {
    added: [...after.keys()].filter((name) => !before.has(name)),
    removed: [...before.keys()].filter((name) => !after.has(name)),
    changed: [...after.keys()].filter((name) => before.has(name)).flatMap((name) => {
      const fields = differingKeys(fieldsOf(before.get(name)!), fieldsOf(after.get(name)!));
      return fields.length > 0 ? [{ name, fields }] : [];
    }),
    settings: differingKeys(from as unknown as Record<string, unknown>, to as unknown as Record<string, unknown>, ['tools', 'version', '$schema']),
  };
}
