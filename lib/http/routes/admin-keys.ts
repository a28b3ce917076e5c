import { Hono, type Context } from 'hono';
import { DEFAULT_GRACE_SECONDS, KeyLifecycleError, MAX_GRACE_SECONDS, MAX_LIFETIME_SECONDS, MAX_PAGE, type ApiKeyLifecycle } from '../../governance/key-lifecycle.ts';
import type { GatewayEnv } from '../env.ts';
import { errorResponse } from '../errors.ts';
import { KEY_ID, KEY_NAME } from '../identifiers.ts';
import { cursorQuery, identifierParam, integerQuery } from '../params.ts';
import { readEmptyBody, readKnownObject } from '../strict-body.ts';

const MAX_SCOPES = 50;
const PAGE = { min: 1, max: MAX_PAGE, default: 50 };
const KEY_FIELDS = { fields: ['principal', 'scopes', 'expires_at', 'expires_in_seconds'], hints: { tenant: 'a key is created in the tenant of the admin key that asks for it; tenant is not a field' } };
const ROTATE_FIELDS = { fields: ['grace_seconds'] };
/** Said with every revocation: how soon it holds where (ApiKeyResolver's cache). */
export const REVOCATION_NOTE = 'revoked: this gateway process refuses the key at once; other processes of the gateway refuse it within 60 seconds (their key cache)';

function lifecycleError(c: Context, error: unknown) {
  if (!(error instanceof KeyLifecycleError)) throw error;
  return errorResponse(c, KeyLifecycleError.STATUS[error.code], error.code, error.message);
}

/**
 * The admin's API keys routes (mounted under /v1/admin, which requires the scope `admin`), always
 * in the admin key's own tenant: another tenant's key id answers 404.
 */
export function adminKeyRoutes(keys: ApiKeyLifecycle) {
  const routes = new Hono<GatewayEnv>();
  /** Who acts: the caller's principal, whose scopes bound the keys it creates or rotates. */
  const actor = (c: Context<GatewayEnv>) => c.get('principal');
  const tenantOf = (c: Context<GatewayEnv>) => c.get('principal').tenant;
  const keyId = (c: Context<GatewayEnv>) => identifierParam(c, 'id', KEY_ID, 'key id');

  routes.get('/', async (c) => {
    const after = cursorQuery(c);
    const limit = integerQuery(c, 'limit', PAGE);
    try {
      const page = await keys.list(tenantOf(c), { after: after === undefined ? undefined : String(after), limit });
      return c.json({ keys: page.keys, ...(page.next !== undefined ? { next_cursor: page.next } : {}) });
    } catch (error) {
      return lifecycleError(c, error);
    }
  });

  routes.post('/', async (c) => {
    const read = await readKnownObject(c, KEY_FIELDS);
    if (!read.ok) return read.response;
    const body = read.body;
    if (typeof body.principal !== 'string' || !KEY_NAME.pattern.test(body.principal)) return errorResponse(c, 400, 'invalid_request', `principal must be ${KEY_NAME.describe}`);
    if (!Array.isArray(body.scopes) || body.scopes.length > MAX_SCOPES || body.scopes.some((s) => typeof s !== 'string' || !KEY_NAME.pattern.test(s))) {
      return errorResponse(c, 400, 'invalid_request', `scopes must be an array of at most ${MAX_SCOPES} scope names, each ${KEY_NAME.describe}`);
    }
    const expiry = expiresAt(body);
    if (!expiry.ok) return errorResponse(c, 400, 'invalid_request', expiry.message);
    try {
      const { key, info } = await keys.create(tenantOf(c), { principal: body.principal, scopes: body.scopes as string[], ...expiry.expiry }, actor(c));
      return c.json({ key, ...info, note: 'this key is shown once; toolgate stores only its hash' }, 201);
    } catch (error) {
      return lifecycleError(c, error);
    }
  });

  routes.get('/:id', async (c) => {
    try {
      return c.json(await keys.get(tenantOf(c), keyId(c)));
    } catch (error) {
      return lifecycleError(c, error);
    }
  });

  routes.post('/:id/revoke', async (c) => {
    const id = keyId(c);
    const read = await readEmptyBody(c, 'revoke takes no body: the key to revoke is in the path');
    if (!read.ok) return read.response;
    try {
      return c.json({ ...(await keys.revoke(tenantOf(c), id, actor(c).principal)), note: REVOCATION_NOTE });
    } catch (error) {
      return lifecycleError(c, error);
    }
  });

  routes.post('/:id/rotate', async (c) => {
    const id = keyId(c);
    const grace = await graceSeconds(c);
    if (!grace.ok) return grace.response;
    try {
      const rotated = await keys.rotate(tenantOf(c), id, actor(c), { grace_seconds: grace.seconds });
      return c.json({ key: rotated.key, ...rotated.info, previous: rotated.previous, note: `this key is shown once; the old key ${rotated.previous.id} keeps working until ${rotated.previous.grace_until}` }, 201);
    } catch (error) {
      return lifecycleError(c, error);
    }
  });

  return routes;
}

/** The expiry fields' types; their values (future, bounded, not both) are the lifecycle's to check. */
function expiresAt(body: Record<string, unknown>): { ok: true; expiry: { expires_at?: string | null; expires_in_seconds?: number } } | { ok: false; message: string } {
  const { expires_at: at, expires_in_seconds: seconds } = body;
  if (seconds !== undefined && typeof seconds !== 'number') return { ok: false, message: `expires_in_seconds must be a whole number of seconds from 1 to ${MAX_LIFETIME_SECONDS} (10 years)` };
  if (at !== undefined && at !== null && typeof at !== 'string') return { ok: false, message: 'expires_at must be an ISO 8601 date and time, like 2030-01-31T00:00:00Z, or null for a key that does not expire' };
  return { ok: true, expiry: { ...(at !== undefined ? { expires_at: at as string | null } : {}), ...(seconds !== undefined ? { expires_in_seconds: seconds as number } : {}) } };
}

/** The rotate body: absent or `{}` (a day's grace), or `{"grace_seconds": N}`. */
async function graceSeconds(c: Context): Promise<{ ok: true; seconds: number } | { ok: false; response: Response }> {
  // Hono keeps the body it read, so readKnownObject below reads the same bytes.
  if (new TextDecoder().decode(await c.req.arrayBuffer()).trim() === '') return { ok: true, seconds: DEFAULT_GRACE_SECONDS };
  const read = await readKnownObject(c, ROTATE_FIELDS);
  if (!read.ok) return read;
  const grace = read.body.grace_seconds;
  if (grace === undefined) return { ok: true, seconds: DEFAULT_GRACE_SECONDS };
  if (typeof grace !== 'number' || !Number.isSafeInteger(grace) || grace < 0 || grace > MAX_GRACE_SECONDS) {
    return { ok: false, response: errorResponse(c, 400, 'invalid_request', `grace_seconds must be a whole number of seconds from 0 to ${MAX_GRACE_SECONDS} (7 days); the old key keeps working that long`) };
  }
  return { ok: true, seconds: grace };
}
