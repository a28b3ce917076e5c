import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { saveRequestState, takeRequestState } from '../../lib/mcp/confirm/request-state.ts';
import { envelope, URL_ELICITATION } from '../helpers/confirm-client.ts';
import { testGateway } from '../helpers/gateway.ts';
import { validManifest } from '../helpers/manifests.ts';
import { EVERY_STORE } from '../support/every-store.ts';
import type { RunningStore } from '../support/store-fixtures.ts';

/**
 * The confirm round trip's `requestState` record on every store adapter: an input_required call's
 * handle resumes its call once (confirmed meanwhile: the result), is refused when used again, for
 * another principal or another call, and once past its expiry.
 */

describe.each(EVERY_STORE)('MCP confirm round trips on the %s store', (_name, open) => {
  let opened: RunningStore;
  let gw: Awaited<ReturnType<typeof testGateway>>;

  beforeAll(async () => {
    opened = await open();
    const manifest = validManifest({ tenant: 'acme', policy: { write: 'confirm' }, tools: [{ name: 'save_note', tier: 'write', executor: { kind: 'builtin', name: 'echo' } }] });
    gw = await testGateway([manifest], { agent: { tenant: 'acme', principal: 'agent' }, mallory: { tenant: 'acme', principal: 'mallory' } }, { store: opened.store });
  }, 60_000);
  afterAll(async () => {
    await opened?.stop();
  });

  let id = 1;
  async function call(text: string, extra: Record<string, unknown> = {}, key = 'agent') {
    const headers = { accept: 'application/json, text/event-stream', 'content-type': 'application/json', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'save_note', host: 'gateway.test' };
    const body = { jsonrpc: '2.0', id: id++, method: 'tools/call', params: { name: 'save_note', arguments: { text }, ...extra, _meta: envelope(URL_ELICITATION) } };
    const response = await gw.request('http://gateway.test/mcp', { method: 'POST', key, headers, body: JSON.stringify(body) });
    // A refused requestState is a JSON-RPC error, kept beside the (absent) result's fields.
    const answer = (await response.json()) as { result?: Record<string, unknown>; error?: { code: number; data?: unknown } };
    return { ...answer.result, ...(answer.error ? { error: answer.error } : {}) } as Record<string, unknown> & { isError?: boolean; content?: Array<{ text: string }>; _meta: Record<string, unknown> };
  }
  const accept = { inputResponses: { 'toolgate.confirm': { action: 'accept' } } };

  it('the handle resumes its call once: confirmed meanwhile, the retry answers the result; then it is used', async () => {
    const asked = await call('kept');
    expect(asked).toMatchObject({ resultType: 'input_required', requestState: expect.stringMatching(/^tgs_/) });
    const url = (asked.inputRequests as Record<string, { params: { url: string } }>)['toolgate.confirm'].params.url;
    expect(url).toMatch(/^http:\/\/gateway\.test\/console\/confirm\/apr_[0-9a-f]{24}$/);
    const approvalId = url.split('/').at(-1)!;
    expect((await gw.request(`/v1/approvals/${approvalId}`, { key: 'agent', json: { decision: 'approve' } })).status).toBe(200);
    // Another principal's retry with the handle is refused, and leaves it usable.
    expect(await call('kept', { requestState: asked.requestState, ...accept }, 'mallory')).toMatchObject({ error: { code: -32602, data: { request_state: 'unknown' } } });
    const done = await call('kept', { requestState: asked.requestState, ...accept });
    expect(done).toMatchObject({ resultType: 'complete', isError: false, content: [{ text: 'kept' }] });
    expect(await call('kept', { requestState: asked.requestState, ...accept })).toMatchObject({ error: { code: -32602, data: { request_state: 'used' } } });
  });

  it('the record itself: taken once, refused for another call, another principal, and past its expiry', async () => {
    const store = opened.store;
    const now = Date.now();
    const state = { tenant: 'acme', principal: 'agent', thread_id: 't', call_id: 'c', tool: 'save_note', args_hash: 'h', approval_id: 'apr_1', round: 1 };
    const retried = { tenant: 'acme', principal: 'agent', thread_id: 't', tool: 'save_note', args_hash: 'h' };
    const live = `tgs_${'a'.repeat(32)}`;
    await saveRequestState(store, { ...state, id: live, expires_at: now + 60_000 });
    expect(await takeRequestState(store, live, { ...retried, principal: 'mallory' }, now)).toEqual({ ok: false, reason: 'unknown' });
    expect(await takeRequestState(store, live, { ...retried, tenant: 'globex' }, now)).toEqual({ ok: false, reason: 'unknown' });
    expect(await takeRequestState(store, live, { ...retried, args_hash: 'other' }, now)).toEqual({ ok: false, reason: 'other_call' });
    expect(await takeRequestState(store, live, retried, now)).toMatchObject({ ok: true, state: { approval_id: 'apr_1', call_id: 'c' } });
    expect(await takeRequestState(store, live, retried, now)).toEqual({ ok: false, reason: 'used' });
    const stale = `tgs_${'b'.repeat(32)}`;
    await saveRequestState(store, { ...state, id: stale, expires_at: now + 60_000 });
    expect(await takeRequestState(store, stale, retried, now + 60_000)).toEqual({ ok: false, reason: 'expired' });
    expect(await takeRequestState(store, `tgs_${'c'.repeat(32)}`, retried, now)).toEqual({ ok: false, reason: 'unknown' });
  });
});
