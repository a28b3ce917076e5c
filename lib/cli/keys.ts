import { parseArgs } from 'node:util';
import type { ApiKeyInfo } from '../governance/key-lifecycle.ts';
import { gatewayTarget, KeysCommandError, storeTarget, type KeysTarget } from './keys-target.ts';

const USAGE = `Usage: toolgate keys create --principal P --scopes a,b [--expires-in 90d]   create a key; printed once (stdout)
       toolgate keys list [--limit N] [--cursor C]                        the tenant's keys: id, prefix, principal, state, scopes, dates
       toolgate keys revoke KEY_ID                                       refuse the key from now on (other gateway processes: within 60 s)
       toolgate keys rotate KEY_ID [--grace 1h]                          a new key (printed once) for the same principal and scopes;
                                                                         the old one keeps working for the grace period (default 1d, at most 7d)
Each acts through a gateway (--url URL --key KEY, default TOOLGATE_URL and TOOLGATE_KEY: an API key with the admin
scope; its own tenant), or with --tenant T directly on the store of TOOLGATE_STORE (default .toolgate/toolgate.db),
e.g. to create a tenant's first admin key. --json prints the answer as JSON. Durations: 90s, 30m, 12h, 90d, or seconds.
toolgate keeps only each key's SHA-256. Scopes the gateway knows: approvals:read, approvals:decide, audit:read, admin,
plus any tool scopes. Through a gateway a key gets only scopes the admin key holds; with --tenant (the operator, on
the store) any.`;

const OPTIONS = {
  tenant: { type: 'string' },
  principal: { type: 'string' },
  scopes: { type: 'string' },
  'expires-in': { type: 'string' },
  grace: { type: 'string' },
  limit: { type: 'string' },
  cursor: { type: 'string' },
  url: { type: 'string' },
  key: { type: 'string' },
  json: { type: 'boolean' },
} as const;

class UsageError extends Error {}

/** `toolgate keys create|list|revoke|rotate`. */
export async function keysCommand(args: string[]): Promise<number> {
  const [action, ...rest] = args;
  let target: KeysTarget | undefined;
  try {
    const { values, positionals } = parseArgs({ args: rest, options: OPTIONS, allowPositionals: true });
    const run = ACTIONS[action ?? ''];
    if (!run) throw new UsageError(action ? `unknown action "${action}"` : 'no action given');
    target = targetFor(values);
    return await run(target, values, positionals);
  } catch (error) {
    if (error instanceof KeysCommandError) {
      console.error(`toolgate keys ${action}: ${error.message}`);
      return 1;
    }
    // parseArgs reports unknown options and missing values as TypeErrors with a readable message.
    if (error instanceof UsageError || error instanceof TypeError) {
      console.error(`toolgate keys: ${error.message}\n\n${USAGE}`);
      return 2;
    }
    throw error;
  } finally {
    await target?.close();
  }
}

type Values = { [name in keyof typeof OPTIONS]?: (typeof OPTIONS)[name]['type'] extends 'boolean' ? boolean : string };
type Action = (target: KeysTarget, values: Values, positionals: string[]) => Promise<number>;

/** --tenant: the store itself (bootstrap); otherwise a gateway, for the admin key's own tenant. */
function targetFor(values: Values): KeysTarget {
  if (values.tenant !== undefined) {
    if (values.url !== undefined || values.key !== undefined) throw new UsageError('give --tenant (the store itself) or --url/--key (a gateway), not both');
    return storeTarget(values.tenant, process.env);
  }
  const url = values.url ?? process.env.TOOLGATE_URL;
  const key = values.key ?? process.env.TOOLGATE_KEY;
  if (!url) throw new UsageError('say where: --url URL (or TOOLGATE_URL) with an admin key, or --tenant T to work on the store directly');
  if (!key) throw new UsageError('pass --key or set TOOLGATE_KEY to an API key with the admin scope');
  return gatewayTarget(url, key);
}

const ACTIONS: Record<string, Action> = {
  async create(target, values, positionals) {
    noPositionals(positionals);
    if (!values.principal) throw new UsageError('--principal is required');
    const scopes = (values.scopes ?? '').split(',').map((s) => s.trim()).filter(Boolean);
    const expiresIn = values['expires-in'] === undefined ? undefined : seconds(values['expires-in'], '--expires-in');
    const { key, info } = await target.create({ principal: values.principal, scopes, ...(expiresIn !== undefined ? { expires_in_seconds: expiresIn } : {}) });
    if (values.json) console.log(JSON.stringify({ key, ...info }, null, 2));
    else console.log(key);
    console.error(`created key ${info.id} for principal "${info.principal}" of tenant "${info.tenant}" with scopes [${info.scopes.join(', ')}], ${info.expires_at ? `expiring at ${info.expires_at}` : 'never expiring'}; it is shown only this once`);
    return 0;
  },

  async list(target, values, positionals) {
    noPositionals(positionals);
    const limit = values.limit === undefined ? 50 : wholeNumber(values.limit, '--limit');
    const page = await target.list({ cursor: values.cursor, limit });
    if (values.json) console.log(JSON.stringify({ keys: page.keys, ...(page.next ? { next_cursor: page.next } : {}) }, null, 2));
    else console.log(keysTable(page.keys));
    if (page.next && !values.json) console.error(`more keys: toolgate keys list --cursor ${page.next}`);
    return 0;
  },

  async revoke(target, values, positionals) {
    const id = oneKeyId(positionals);
    const info = await target.revoke(id);
    if (values.json) console.log(JSON.stringify(info, null, 2));
    console.error(`revoked key ${info.id} (${info.prefix}, principal "${info.principal}"): ${target.revocation}`);
    return 0;
  },

  async rotate(target, values, positionals) {
    const id = oneKeyId(positionals);
    const grace = values.grace === undefined ? undefined : seconds(values.grace, '--grace', true);
    const { key, info, previous } = await target.rotate(id, grace);
    if (values.json) console.log(JSON.stringify({ key, ...info, previous }, null, 2));
    else console.log(key);
    console.error(`rotated key ${previous.id}: the new key ${info.id} (shown only this once) has the same principal "${info.principal}" and scopes; the old key works until ${previous.grace_until}`);
    return 0;
  },
};

function noPositionals(positionals: string[]): void {
  if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"`);
}

function oneKeyId(positionals: string[]): string {
  if (positionals.length !== 1) throw new UsageError('give one key id (key_…, as `toolgate keys list` shows it)');
  return positionals[0];
}

const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400 };

/** "90d", "12h", "30m", "45s" or a plain number of seconds. */
export function seconds(text: string, option: string, zeroAllowed = false): number {
  const match = /^(\d{1,9})([smhd]?)$/.exec(text.trim());
  const value = match ? Number(match[1]) * (UNIT_SECONDS[match[2]] ?? 1) : Number.NaN;
  if (!(value >= (zeroAllowed ? 0 : 1))) throw new UsageError(`${option} must be a duration like 90s, 30m, 12h or 90d (got "${text}")`);
  return value;
}

function wholeNumber(text: string, option: string): number {
  if (!/^\d{1,4}$/.test(text)) throw new UsageError(`${option} must be a whole number (got "${text}")`);
  return Number(text);
}

const COLUMNS: Array<[string, (key: ApiKeyInfo) => string]> = [
  ['ID', (k) => k.id],
  ['PREFIX', (k) => k.prefix],
  ['PRINCIPAL', (k) => k.principal],
  ['STATE', (k) => (k.state === 'rotated' && k.grace_until ? `rotated (until ${when(k.grace_until)})` : k.state)],
  ['SCOPES', (k) => k.scopes.join(',') || '-'],
  ['CREATED', (k) => when(k.created_at)],
  ['LAST USED', (k) => when(k.last_used_at)],
  ['EXPIRES', (k) => (k.expires_at ? when(k.expires_at) : 'never')],
];

/** ISO time to the minute, UTC ("2030-01-31 09:15Z"); "-" for never. */
const when = (iso: string | null) => (iso ? `${iso.slice(0, 10)} ${iso.slice(11, 16)}Z` : '-');

/** A plain aligned table, one key a row. */
export function keysTable(keys: ApiKeyInfo[]): string {
  if (keys.length === 0) return 'no keys (keys created before key ids existed are listed after their next use)';
  const rows = [COLUMNS.map(([title]) => title), ...keys.map((key) => COLUMNS.map(([, cell]) => cell(key)))];
  const widths = COLUMNS.map((_, i) => Math.max(...rows.map((row) => row[i].length)));
  return rows.map((row) => row.map((cell, i) => cell.padEnd(widths[i])).join('  ').trimEnd()).join('\n');
}
