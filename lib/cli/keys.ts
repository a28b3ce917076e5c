import type { ApiKeyInfo } from '../governance/key-lifecycle.ts';
import { flagOf, textOf, type Invocation } from './command-line.ts';
import { GatewayUnreachableError } from './gateway-fetch.ts';
import { gatewayTarget, KeysCommandError, storeTarget, type KeysTarget } from './keys-target.ts';

class UsageError extends Error {}

/** `toolgate keys ACTION`, its command line parsed (command-tree.ts). */
export async function keysCommand(action: string, invocation: Invocation): Promise<number> {
  let target: KeysTarget | undefined;
  try {
    const values = valuesOf(invocation);
    // Opened by the action once its own options are checked: a refused command touches no store.
    const open = () => (target = targetFor(values));
    return await ACTIONS[action](open, values, invocation.operands);
  } catch (error) {
    if (error instanceof KeysCommandError || error instanceof GatewayUnreachableError) {
      console.error(`toolgate keys ${action}: ${error.message}`);
      return 1;
    }
    if (error instanceof UsageError) {
      console.error(`toolgate keys ${action}: ${error.message}; see toolgate keys ${action} --help`);
      return 2;
    }
    throw error;
  } finally {
    await target?.close();
  }
}

const STRING_OPTIONS = ['tenant', 'principal', 'scopes', 'expires-in', 'grace', 'limit', 'cursor', 'url', 'key'] as const;

interface Values extends Partial<Record<(typeof STRING_OPTIONS)[number], string>> {
  json?: boolean;
}

function valuesOf(invocation: Invocation): Values {
  const values: Values = { json: flagOf(invocation, 'json') };
  for (const name of STRING_OPTIONS) values[name] = textOf(invocation, name);
  return values;
}

type Action = (open: () => KeysTarget, values: Values, operands: string[]) => Promise<number>;

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
  async create(open, values) {
    if (!values.principal) throw new UsageError('--principal is required');
    const scopes = scopesOf(values.scopes);
    const expiresIn = values['expires-in'] === undefined ? undefined : seconds(values['expires-in'], '--expires-in');
    const { key, info } = await open().create({ principal: values.principal, scopes, ...(expiresIn !== undefined ? { expires_in_seconds: expiresIn } : {}) });
    if (values.json) console.log(JSON.stringify({ key, ...info }, null, 2));
    else console.log(key);
    console.error(`created key ${info.id} for principal "${info.principal}" of tenant "${info.tenant}" with scopes [${info.scopes.join(', ')}], ${info.expires_at ? `expiring at ${info.expires_at}` : 'never expiring'}; it is shown only this once`);
    return 0;
  },

  async list(open, values) {
    const limit = values.limit === undefined ? 50 : wholeNumber(values.limit, '--limit');
    const page = await open().list({ cursor: values.cursor, limit });
    if (values.json) console.log(JSON.stringify({ keys: page.keys, ...(page.next ? { next_cursor: page.next } : {}) }, null, 2));
    else console.log(keysTable(page.keys));
    if (page.next && !values.json) console.error(`more keys: toolgate keys list --cursor ${page.next}`);
    return 0;
  },

  async revoke(open, values, [id]) {
    const target = open();
    const info = await target.revoke(id);
    if (values.json) console.log(JSON.stringify(info, null, 2));
    console.error(`revoked key ${info.id} (${info.prefix}, principal "${info.principal}"): ${target.revocation}`);
    return 0;
  },

  async rotate(open, values, [id]) {
    const grace = values.grace === undefined ? undefined : seconds(values.grace, '--grace', true);
    const { key, info, previous } = await open().rotate(id, grace);
    if (values.json) console.log(JSON.stringify({ key, ...info, previous }, null, 2));
    else console.log(key);
    console.error(`rotated key ${previous.id}: the new key ${info.id} (shown only this once) has the same principal "${info.principal}" and scopes; the old key works until ${previous.grace_until}`);
    return 0;
  },
};

/**
 * --scopes, required so that a key without scopes is asked for ("none"), never made by leaving the
 * option out.
 */
function scopesOf(option: string | undefined): string[] {
  if (option === undefined) throw new UsageError('--scopes is required: the scopes the key holds, comma-separated (e.g. --scopes orders:read), or --scopes none for a key with none');
  if (option.trim() === 'none') return [];
  const scopes = option.split(',').map((scope) => scope.trim()).filter(Boolean);
  if (scopes.length === 0) throw new UsageError(`--scopes "${option}" names no scope: list them comma-separated, or say --scopes none for a key with none`);
  if (scopes.includes('none')) throw new UsageError('--scopes none means no scopes, so it stands alone');
  return scopes;
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
