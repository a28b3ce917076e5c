import { callResultEnvelope } from '../audit/call-envelopes.ts';
import { idempotencyKeyFor } from '../idempotency/keys.ts';
import { ownedBy } from '../idempotency/record-owner.ts';
import { storableResult } from '../idempotency/stored-result.ts';
import { ContentShapeError, readToolResultBody } from '../registry/content-read.ts';
import { contentText, errorText } from '../registry/content-text.ts';
import type { JsonObject } from '../registry/json.ts';
import { failureResult, type ToolResult } from './call.ts';
import { checkContent } from './content-check.ts';
import type { DispatchDeps } from './context.ts';
import { executedResult } from './executed-result.ts';
import { authorizeStage } from './stages/authorize.ts';

export interface ClientResultCaller {
  tenant: string;
  thread_id: string;
  principal: string;
  scopes: ReadonlySet<string>;
}

export type ClientResultOutcome =
  | { ok: true; result: ToolResult }
  | { ok: false; status: 400 | 403 | 404 | 409; code: string; message: string };

/**
 * A client tool's output, posted back by the client that ran it (`POST /v1/calls/:call_id/result`,
 * body: MCP's CallToolResult). The call must be a stored client call still waiting for its
 * output; the parts get the same checks, caps and truncation as any tool's, the result replaces
 * the stored hand-out (a retry of the call then replays the output) and is audited, in one commit.
 */
export async function recordClientResult(deps: DispatchDeps, caller: ClientResultCaller, callId: string, body: unknown): Promise<ClientResultOutcome> {
  const store = deps.store;
  if (!store) return { ok: false, status: 404, code: 'not_found', message: 'this gateway keeps no calls (no store), so there is no call to post a result to' };
  let read;
  try {
    read = readToolResultBody(body);
  } catch (error) {
    if (error instanceof ContentShapeError) return { ok: false, status: 400, code: 'invalid_request', message: error.message };
    throw error;
  }
  const key = idempotencyKeyFor('call', { tenant: caller.tenant, thread_id: caller.thread_id, call_id: callId, tool: '', args_hash: '' })!;
  const stored = await store.get(key);
  // Another principal's call is an unknown one (a thread and call id prove nothing).
  const record = stored && ownedBy(stored, caller.principal) ? stored : undefined;
  const handedOut = record?.state === 'completed' ? (record.data.result as unknown as ToolResult) : undefined;
  if (!record) return { ok: false, status: 404, code: 'not_found', message: `no stored call "${callId}" in thread "${caller.thread_id}" (calls of read tools and of tools with idempotency "none" are not stored, so they take no posted result)` };
  if (!handedOut?.client_call) return { ok: false, status: 409, code: 'conflict', message: `call "${callId}" is not a client call waiting for its output (it is ${handedOut ? `settled as ${handedOut.status}` : record.state})` };
  const definition = deps.registry.get(handedOut.name)?.definition;
  if (definition) {
    const authorized = authorizeStage(definition, caller.scopes);
    if (!authorized.ok) return { ok: false, status: 403, code: 'forbidden', message: authorized.failure.message };
  }
  const startedAt = performance.now();
  const call = { call_id: callId, name: handedOut.name };
  const content = read.isError ? undefined : checkContent(read.output);
  const result = content
    ? executedResult(call, { text: contentText(content.parts, content.structured), content }, definition?.output, startedAt)
    : failureResult(call, { code: 'error', message: errorText(read.output.content, read.output.structured) || `client tool \`${call.name}\` reported an error without a message` }, startedAt);
  // A new owner: of two racing posts, only the first finds the hand-out's owner still there.
  const change = { key, expect: { state: 'completed', ...(record.owner ? { owner: record.owner } : {}) }, next: { ...record, owner: `client-result:${crypto.randomUUID()}`, data: { ...record.data, result: storableResult(result) as unknown as JsonObject } } };
  const envelope = await callResultEnvelope({
    call_id: callId,
    tool: call.name,
    principal: caller.principal,
    raw_arguments: handedOut.client_call.arguments,
    args_hash: String(record.data.args_hash),
    decision: { decision: 'client', stage: 'client' },
    result: { status: result.status, is_error: result.is_error, truncated: result.truncated, duration_ms: result.duration_ms },
    output: content ? contentText(content.parts, content.structured) : result.content,
    ...(content ? { output_content: content } : {}),
  });
  const thread = { tenant: caller.tenant, thread_id: caller.thread_id };
  const outcome = deps.audit ? await deps.audit.record(thread, [{ ...envelope, data: { ...envelope.data, via: 'client' } }], { record: change }) : (await store.commit({ record: change })).record;
  if (!outcome?.ok) return { ok: false, status: 409, code: 'conflict', message: `call "${callId}" got its output from another request first` };
  return { ok: true, result };
}
