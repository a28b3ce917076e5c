/**
 * The admin key routes: create with expiry, list in pages, revoke, rotate; each within the admin
 * key's own tenant, each attacked: another tenant's key id, a non-admin key, garbage paging, and
 * keys used after revocation, expiry and rotation.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { ApiKeyLifecycle } from '../../lib/governance/key-lifecycle.ts';
import { testGateway } from '../helpers/gateway.ts';
import { validManifest } from '../helpers/manifests.ts';

let gw: Awaited<ReturnType<typeof testGateway>>;

beforeEach(async () => {
  gw = await testGateway([validManifest({ tenant: 'acme' }), validManifest({ tenant: 'beta' })], {
    admin: { tenant: 'acme', principal: 'root', scopes: ['admin', 'audit:read', 'approvals:decide'] },
    agent: { tenant: 'acme', principal: 'agent', scopes: ['approvals:decide'] },
    'beta-admin': { tenant: 'beta', principal: 'eve', scopes: ['admin'] },
  });
});

const create = async (body: unknown, key = 'admin') => gw.request('/v1/admin/keys', { key, json: body });
const created = async (body: Record<string, unknown> = {}) => (await (await create({ principal: 'bot', scopes: ['audit:read'], ...body })).json()) as { key: string; id: string; prefix: string; expires_at: string | null };
const post = (path: string, key: string, json?: unknown) => gw.request(path, { key, method: 'POST', ...(json !== undefined ? { json } : {}) });
/** What the gateway answers a request made with `key`: the status, and the error message if refused. */
const use = async (key: string) => {
  const response = await gw.request('/v1/audit?thread_id=_keys', { key });
  return response.status === 200 ? 200 : [response.status, ((await response.json()) as { error: { message: string } }).error.message];
};

describe('POST /v1/admin/keys', () => {
  it('answers the key once with its id, prefix and expiry', async () => {
    const response = await create({ principal: 'bot', scopes: ['audit:read'], expires_in_seconds: 3600 });
    expect(response.status).toBe(201);
    const body = await response.json();
    expect(body).toMatchObject({ key: expect.stringMatching(/^tg_[0-9a-f]{48}$/), id: expect.stringMatching(/^key_[0-9a-f]{16}$/), tenant: 'acme', principal: 'bot', scopes: ['audit:read'], created_by: 'root', state: 'active', last_used_at: null });
    expect(body.prefix).toBe(body.key.slice(0, 11));
    const lifetime = Date.parse(body.expires_at) - Date.parse(body.created_at);
    expect(lifetime).toBeGreaterThan(3590_000);
    expect(lifetime).toBeLessThanOrEqual(3600_000);
  });

  it('refuses bad expiry fields with a message saying what to send', async () => {
    const refused = async (body: Record<string, unknown>) => {
      const response = await create({ principal: 'bot', scopes: [], ...body });
      expect(response.status).toBe(400);
      return ((await response.json()) as { error: { message: string } }).error.message;
    };
    expect(await refused({ expires_at: '2099-01-01T00:00:00Z', expires_in_seconds: 60 })).toBe('give expires_at or expires_in_seconds, not both');
    expect(await refused({ expires_in_seconds: 0 })).toMatch(/^expires_in_seconds must be a whole number of seconds from 1/);
    expect(await refused({ expires_in_seconds: '60' })).toMatch(/^expires_in_seconds must be/);
    expect(await refused({ expires_at: '2001-01-01T00:00:00Z' })).toBe('expires_at 2001-01-01T00:00:00Z is not in the future');
    expect(await refused({ expires_at: 'next week' })).toMatch(/^expires_at must be an ISO 8601 date and time/);
    expect(await refused({ expires_at: 1_900_000_000 })).toMatch(/^expires_at must be an ISO 8601 date and time/);
    expect(await refused({ expires: '1d' })).toMatch(/expires/);
    expect((await (await gw.request('/v1/admin/keys?limit=200', { key: 'admin' })).json()).keys.map((k: { principal: string }) => k.principal)).not.toContain('bot');
  });
});

describe('GET /v1/admin/keys', () => {
  it('lists the tenant\'s keys with prefixes, never the keys or another tenant\'s', async () => {
    const made = await created();
    const response = await gw.request('/v1/admin/keys', { key: 'admin' });
    expect(response.status).toBe(200);
    const text = await response.text();
    const body = JSON.parse(text) as { keys: Array<{ id: string; tenant: string; prefix: string }> };
    expect(body.keys.map((k) => k.tenant)).toEqual(['acme', 'acme', 'acme']);
    expect(body.keys.at(-1)).toMatchObject({ id: made.id, prefix: made.prefix, principal: 'bot' });
    expect(text).not.toContain(made.key);
    expect(text).not.toContain('beta');
  });

  it('pages with cursor and limit, and refuses an unbounded limit or a garbage cursor with 400', async () => {
    for (let i = 0; i < 4; i++) await created({ principal: `bot${i}` });
    const ids: string[] = [];
    let cursor: string | undefined;
    do {
      const body = await (await gw.request(`/v1/admin/keys?limit=2${cursor ? `&cursor=${cursor}` : ''}`, { key: 'admin' })).json();
      expect(body.keys.length).toBeLessThanOrEqual(2);
      ids.push(...body.keys.map((k: { id: string }) => k.id));
      cursor = body.next_cursor;
    } while (cursor);
    expect(ids).toHaveLength(6);
    expect(new Set(ids).size).toBe(6);
    for (const query of ['limit=0', 'limit=201', 'limit=-1', 'limit=1e9', 'limit=99999999999999999999', 'cursor=abc', 'cursor=-5', 'cursor=1.5', 'cursor=1&cursor=2']) {
      const response = await gw.request(`/v1/admin/keys?${query}`, { key: 'admin' });
      expect(response.status, query).toBe(400);
      expect((await response.json()).error.code).toBe('invalid_request');
    }
  });

  it('is for admins only', async () => {
    expect((await gw.request('/v1/admin/keys', { key: 'agent' })).status).toBe(403);
  });
});

describe('POST /v1/admin/keys/:id/revoke', () => {
  it('revokes at once in this gateway, says how soon elsewhere, and audits it', async () => {
    const made = await created();
    expect(await use(made.key)).toBe(200);
    const response = await post(`/v1/admin/keys/${made.id}/revoke`, 'admin');
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ id: made.id, state: 'revoked', revoked_by: 'root', note: expect.stringContaining('within 60 seconds') });
    expect(await use(made.key)).toEqual([401, expect.stringMatching(/^this API key was revoked at .*; ask an admin of your tenant for another key$/)]);
    const audit = await (await gw.request('/v1/audit?thread_id=_keys', { key: 'admin' })).json();
    expect(audit.envelopes.map((e: { type: string; data: { id: string } }) => [e.type, e.data.id])).toEqual([['key.created', made.id], ['key.revoked', made.id]]);
    expect(JSON.stringify(audit)).not.toContain(made.key);
  });

  it('another tenant\'s key id is not found (404), and the key keeps working', async () => {
    const made = await created();
    for (const path of [`/v1/admin/keys/${made.id}/revoke`, `/v1/admin/keys/${made.id}/rotate`]) {
      const response = await post(path, 'beta-admin');
      expect(response.status).toBe(404);
      expect((await response.json()).error.code).toBe('not_found');
    }
    expect((await gw.request(`/v1/admin/keys/${made.id}`, { key: 'beta-admin' })).status).toBe(404);
    expect(await use(made.key)).toBe(200);
  });

  it('a non-admin key cannot revoke, even its own key', async () => {
    const made = await created({ principal: 'bot', scopes: ['audit:read', 'approvals:decide'] });
    expect((await post(`/v1/admin/keys/${made.id}/revoke`, made.key)).status).toBe(403);
    expect((await post(`/v1/admin/keys/${made.id}/revoke`, 'agent')).status).toBe(403);
    expect(await use(made.key)).toBe(200);
  });

  it('an id of another shape is 404 without a lookup; a body is refused', async () => {
    expect((await post('/v1/admin/keys/not-an-id/revoke', 'admin')).status).toBe(404);
    expect((await post(`/v1/admin/keys/key_${'0'.repeat(16)}/revoke`, 'admin')).status).toBe(404);
    const made = await created();
    const response = await post(`/v1/admin/keys/${made.id}/revoke`, 'admin', { id: made.id });
    expect(response.status).toBe(400);
    expect(await use(made.key)).toBe(200);
  });
});

describe('POST /v1/admin/keys/:id/rotate', () => {
  it('gives a new key for the same principal; the old one works within its grace period and is refused after it', async () => {
    const made = await created({ expires_in_seconds: 2 * 86_400 });
    const response = await post(`/v1/admin/keys/${made.id}/rotate`, 'admin', {});
    expect(response.status).toBe(201);
    const rotated = await response.json();
    expect(rotated).toMatchObject({ key: expect.stringMatching(/^tg_/), principal: 'bot', scopes: ['audit:read'], state: 'active', previous: { id: made.id, state: 'rotated', replaced_by: rotated.id } });
    // The default grace is a day: the old key still works.
    expect(Date.parse(rotated.previous.grace_until) - Date.parse(rotated.created_at)).toBe(86_400_000);
    // The new key lives as long as the old one was set to.
    expect(Date.parse(rotated.expires_at) - Date.parse(rotated.created_at)).toBe(Date.parse(made.expires_at!) - Date.parse(rotated.previous.created_at));
    expect(await use(made.key)).toBe(200);
    expect(await use(rotated.key)).toBe(200);
    const again = await post(`/v1/admin/keys/${rotated.id}/rotate`, 'admin', { grace_seconds: 0 });
    const third = await again.json();
    expect(await use(rotated.key)).toEqual([401, `this API key was rotated at ${third.previous.grace_until} and its grace period ended at ${third.previous.grace_until}; use the new key (${third.id})`]);
    expect(await use(third.key)).toBe(200);
    const audit = await (await gw.request('/v1/audit?thread_id=_keys', { key: 'admin' })).json();
    expect(audit.envelopes.map((e: { type: string }) => e.type)).toEqual(['key.created', 'key.rotated', 'key.rotated']);
  });

  it('refuses a grace period out of bounds and unknown fields', async () => {
    const made = await created();
    for (const body of [{ grace_seconds: -1 }, { grace_seconds: 604_801 }, { grace_seconds: '60' }, { grace: 60 }]) {
      expect((await post(`/v1/admin/keys/${made.id}/rotate`, 'admin', body)).status).toBe(400);
    }
    expect((await (await gw.request('/v1/admin/keys?limit=200', { key: 'admin' })).json()).keys.find((k: { id: string }) => k.id === made.id).state).toBe('active');
  });

  it('concurrent rotations of one key give one new key; the others are conflicts', async () => {
    const made = await created();
    const responses = await Promise.all(Array.from({ length: 5 }, () => post(`/v1/admin/keys/${made.id}/rotate`, 'admin', { grace_seconds: 60 })));
    expect(responses.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409]);
    const keys = (await (await gw.request('/v1/admin/keys?limit=200', { key: 'admin' })).json()).keys.filter((k: { principal: string }) => k.principal === 'bot');
    // Created and rotated within one millisecond, the two keys may list in either order.
    expect(keys.map((k: { state: string }) => k.state).sort()).toEqual(['active', 'rotated']);
  });

  it('a revoked key cannot be rotated back to life', async () => {
    const made = await created();
    await post(`/v1/admin/keys/${made.id}/revoke`, 'admin');
    const response = await post(`/v1/admin/keys/${made.id}/rotate`, 'admin');
    expect(response.status).toBe(409);
    expect((await response.json()).error.message).toMatch(/revoked; create a new key instead/);
  });
});

describe('an expired key', () => {
  it('is refused with when it expired', async () => {
    // Created two hours ago to expire an hour ago (the lifecycle's clock set back).
    const past = new ApiKeyLifecycle(gw.store, { now: () => Date.now() - 2 * 3600_000 });
    const expiresAt = new Date(Date.now() - 3600_000).toISOString();
    const { key, info } = await past.create('acme', { principal: 'old', scopes: ['audit:read'], expires_at: expiresAt }, { operator: 'root' });
    expect(await use(key)).toEqual([401, `this API key expired at ${expiresAt}; ask an admin of your tenant for a new key (toolgate keys create)`]);
    const listed = (await (await gw.request('/v1/admin/keys?limit=200', { key: 'admin' })).json()).keys.find((k: { id: string }) => k.id === info.id);
    expect(listed.state).toBe('expired');
  });
});
