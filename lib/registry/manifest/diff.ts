import { canonicalJson } from '../../idempotency/canonical-json.ts';
import type { Manifest, ManifestTool } from './manifest.ts';

/** One value that differs: its dotted path and the value before and after (absent: no key). */
export interface ValueChange {
  path: string;
  from?: unknown;
  to?: unknown;
}

export interface ManifestDiff {
  added: string[];
  removed: string[];
  /** Tools in both, with the fields that differ and each changed value, old → new. */
  changed: Array<{ name: string; fields: string[]; changes: ValueChange[] }>;
  /** Top-level settings that differ (policy, profile, approvals, execution_environment, ...). */
  settings: string[];
  /** The settings' changed values, old → new. */
  setting_changes: ValueChange[];
}

type Fields = Record<string, unknown>;

const fieldsOf = (tool: ManifestTool) => tool as unknown as Fields;
const same = (a: unknown, b: unknown) => canonicalJson(a ?? null) === canonicalJson(b ?? null);
const isPlainObject = (value: unknown): value is Fields => typeof value === 'object' && value !== null && !Array.isArray(value);

function differingKeys(a: Fields, b: Fields, skip: string[] = []): string[] {
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].filter((k) => !skip.includes(k)).sort();
  return keys.filter((key) => !same(a[key], b[key]));
}

/** The leaves that differ below `path`: objects are walked key by key, anything else (arrays too) compared whole. */
function valueChanges(path: string, from: unknown, to: unknown): ValueChange[] {
  if (isPlainObject(from) && isPlainObject(to)) return differingKeys(from, to).flatMap((key) => valueChanges(`${path}.${key}`, from[key], to[key]));
  return [{ path, ...(from === undefined ? {} : { from }), ...(to === undefined ? {} : { to }) }];
}

/** What changes from version `from` to version `to`: tools added, removed and changed (by field, old → new). */
export function diffManifests(from: Manifest, to: Manifest): ManifestDiff {
  const before = new Map(from.tools.map((t) => [t.name, t]));
  const after = new Map(to.tools.map((t) => [t.name, t]));
  const settings = differingKeys(from as unknown as Fields, to as unknown as Fields, ['tools', 'version', '$schema']);
  return {
    added: [...after.keys()].filter((name) => !before.has(name)),
    removed: [...before.keys()].filter((name) => !after.has(name)),
    changed: [...after.keys()].filter((name) => before.has(name)).flatMap((name) => {
      const [a, b] = [fieldsOf(before.get(name)!), fieldsOf(after.get(name)!)];
      const fields = differingKeys(a, b);
      return fields.length > 0 ? [{ name, fields, changes: fields.flatMap((field) => valueChanges(field, a[field], b[field])) }] : [];
    }),
    settings,
    setting_changes: settings.flatMap((key) => valueChanges(key, (from as unknown as Fields)[key], (to as unknown as Fields)[key])),
  };
}

/** Characters of one value a diff line shows before cutting it (a policy or a schema can be long). */
const MAX_VALUE_CHARS = 120;

/** A value as a diff line shows it: JSON, cut when long; "(none)" where the key is absent. */
export function shownValue(value: unknown): string {
  if (value === undefined) return '(none)';
  const json = JSON.stringify(value);
  return json.length > MAX_VALUE_CHARS ? `${json.slice(0, MAX_VALUE_CHARS - 1)}…` : json;
}

/** "3000 → 5000". */
export const oldToNew = (change: ValueChange) => `${shownValue(change.from)} → ${shownValue(change.to)}`;
