import { Hono, type Context } from 'hono';
import { recordClientResult } from '../../dispatch/client-result.ts';
import { CALL_FORMATS, isCallFormat, PROVIDER_FORMATS } from '../../dispatch/formats/index.ts';
import { storedCallResult } from '../../dispatch/stored-call.ts';
import { idempotencyKeyFor } from '../../idempotency/keys.ts';
import { ownedBy } from '../../idempotency/record-owner.ts';
import { enterWait, TOO_MANY_WAITING } from '../../limits/store-waits.ts';
import type { Store } from '../../stores/store.ts';
import { deferFor } from '../defer.ts';
import type { GatewayEnv } from '../env.ts';
import { errorResponse } from '../errors.ts';
import { CALL_ID, THREAD_ID } from '../identifiers.ts';
import { identifierParam, identifierQuery, secondsQuery } from '../params.ts';
import { readKnownObject } from '../strict-body.ts';
import { clippedJson } from '../../validation/messages.ts';
import { startWaitSpan } from '../../telemetry/stage-span.ts';

const MAX_WAIT_SECONDS = 25;
const POLL_MS = 500;

/**
 * GET /v1/calls/:call_id?thread_id=&wait=SECONDS: a stored call's current result. With `wait`,
 * holds the request (up to 25 s) while the call is still waiting for approval or running.
 */
/** toolgate's envelope and an MCP CallToolResult's own fields (`_meta` included: MCP clients send it). */
const CLIENT_RESULT_FIELDS = {
  fields: ['thread_id', 'format', 'content', 'structuredContent', 'isError', '_meta'],
  hints: { structured_content: 'the structured content field is structuredContent (MCP\'s CallToolResult shape)', is_error: 'the error flag is isError (MCP\'s CallToolResult shape)' },
};

export function callRoutes(store: Store) {
  const routes = new Hono<GatewayEnv>();
  routes.get('/:call_id', async (c) => {
    const call_id = identifierParam(c, 'call_id', CALL_ID, 'call id');
    const thread_id = identifierQuery(c, 'thread_id', THREAD_ID);
    const wait = secondsQuery(c, 'wait', MAX_WAIT_SECONDS);
    const { tenant, principal } = c.get('principal');
    // A wait holds the request and reads the store every poll: a caller has only so many at once.
    const place = wait > 0 ? enterWait(tenant, principal) : undefined;
    if (wait > 0 && !place) return errorResponse(c, 429, 'rate_limited', `${TOO_MANY_WAITING}; poll again without wait, or after another wait has ended`);
    try {
      return await pollCall(c, store, call_id, thread_id, wait);
    } finally {
      place?.leave();
    }
  });
  /**
   * POST /v1/calls/:call_id/result: a client tool's output, from the client that ran it:
   * `{thread_id, content: [...], structuredContent?, isError?, format?}` (MCP's CallToolResult
   * plus the thread, and a provider format to get the messages to append).
   */
  routes.post('/:call_id/result', async (c) => {
    const call_id = identifierParam(c, 'call_id', CALL_ID, 'call id');
    const read = await readKnownObject(c, CLIENT_RESULT_FIELDS);
    if (!read.ok) return read.response;
    const { thread_id, format } = read.body;
    if (typeof thread_id !== 'string' || !THREAD_ID.pattern.test(thread_id)) return errorResponse(c, 400, 'invalid_request', `thread_id is required: ${THREAD_ID.describe}`);
    if (format !== undefined && format !== 'toolgate' && !isCallFormat(format)) return errorResponse(c, 400, 'invalid_request', `format must be one of toolgate, ${CALL_FORMATS.join(', ')} (got ${clippedJson(format)})`);
    const principal = c.get('principal');
    const caller = { tenant: principal.tenant, thread_id, principal: principal.principal, scopes: new Set(principal.scopes) };
    const outcome = await recordClientResult(c.get('runtime').deps, caller, call_id, read.body);
    if (!outcome.ok) return errorResponse(c, outcome.status, outcome.code, outcome.message);
    const { result } = outcome;
    const messages = isCallFormat(format) ? PROVIDER_FORMATS[format].writeResults([result], [{ call_id, name: result.name }]) : undefined;
    return c.json({ call_id, thread_id, status: result.status, result, ...(messages ? { messages } : {}) });
  });
  return routes;
}

/** The call's current result, once settled or once `wait` seconds have passed. */
async function pollCall(c: Context<GatewayEnv>, store: Store, call_id: string, thread_id: string, wait: number): Promise<Response> {
  const deps = c.get('runtime').deps;
  const { tenant, principal } = c.get('principal');
  const key = idempotencyKeyFor('call', { tenant, thread_id, call_id, tool: '', args_hash: '' })!;
  const deadline = Date.now() + wait * 1000;
  const waiting = startWaitSpan(deps.tracer, c.get('span'), call_id, wait);
  for (;;) {
    const record = await store.get(key);
    // Another principal's call answers as an unknown one: its thread and id tell nothing of it.
    if (!record || !ownedBy(record, principal)) {
      waiting?.end();
      return errorResponse(c, 404, 'not_found', `no stored call "${call_id}" in thread "${thread_id}" (calls of read tools and of tools with idempotency "none" are not stored)`);
    }
    const result = await storedCallResult(deps, key, record, { tenant, thread_id }, call_id, deferFor(c));
    const settled = result.status !== 'pending_approval' && result.status !== 'in_progress';
    if (settled || Date.now() + POLL_MS > deadline) {
      waiting?.setAttribute('toolgate.status', result.status).end();
      return c.json({ call_id, thread_id, status: result.status, result });
    }
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}
