import { isJSONRPCErrorResponse, isJSONRPCNotification, isJSONRPCRequest, isJSONRPCResultResponse } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { echoableId, httpStatusOf, readJsonRpcMessage } from '../../lib/mcp-wire/json-rpc.ts';

/** What the SDK v2's guards call a value (the oracle for readJsonRpcMessage). */
function sdkKind(value: unknown): string | undefined {
  if (isJSONRPCRequest(value)) return 'request';
  if (isJSONRPCNotification(value)) return 'notification';
  if (isJSONRPCResultResponse(value) || isJSONRPCErrorResponse(value)) return 'response';
  return undefined;
}

const VALUES: unknown[] = [
  { jsonrpc: '2.0', id: 1, method: 'ping' },
  { jsonrpc: '2.0', id: 'a', method: 'ping', params: {} },
  { jsonrpc: '2.0', id: -7, method: 'x', params: { _meta: { progressToken: 'p', other: [1] } } },
  { jsonrpc: '2.0', id: 1, method: 'x', params: { _meta: { progressToken: 1.5 } } },
  { jsonrpc: '2.0', id: 1, method: 'x', params: { _meta: { 'io.modelcontextprotocol/related-task': { taskId: 't', extra: 1 } } } },
  { jsonrpc: '2.0', id: 1, method: 'x', params: { _meta: { 'io.modelcontextprotocol/related-task': {} } } },
  { jsonrpc: '2.0', id: 1, method: 'x', params: { _meta: [] } },
  { jsonrpc: '2.0', id: 1, method: 'x', params: null },
  { jsonrpc: '2.0', id: 1, method: 'x', params: [] },
  { jsonrpc: '2.0', id: 1.5, method: 'x' },
  { jsonrpc: '2.0', id: 2 ** 53, method: 'x' },
  { jsonrpc: '2.0', id: null, method: 'x' },
  { jsonrpc: '2.0', id: true, method: 'x' },
  { jsonrpc: '2.0', method: 'n' },
  { jsonrpc: '2.0', method: 'n', params: { a: 1 } },
  { jsonrpc: '2.0', method: 5 },
  { jsonrpc: '1.0', id: 1, method: 'x' },
  { id: 1, method: 'x' },
  { jsonrpc: '2.0', id: 1, method: 'x', extra: 1 },
  JSON.parse('{"jsonrpc":"2.0","id":1,"method":"x","__proto__":{}}'),
  { jsonrpc: '2.0', id: 1, result: {} },
  { jsonrpc: '2.0', id: 1, result: { _meta: { progressToken: {} } } },
  { jsonrpc: '2.0', id: 1, result: [] },
  { jsonrpc: '2.0', result: {} },
  { jsonrpc: '2.0', id: 1, error: { code: -32000, message: 'm', data: { x: 1 } } },
  { jsonrpc: '2.0', error: { code: -32000, message: 'm' } },
  { jsonrpc: '2.0', id: 1, error: { code: 1.5, message: 'm' } },
  { jsonrpc: '2.0', id: 1, error: { code: 1 } },
  { jsonrpc: '2.0', id: 1, error: { code: 1, message: 'm' }, result: {} },
  { jsonrpc: '2.0', id: 1, method: 'x', result: {} },
  {},
  [],
  null,
  42,
  'ping',
];

describe('readJsonRpcMessage', () => {
  it.each(VALUES.map((value) => [JSON.stringify(value), value] as const))('%s: the same kind as the SDK v2 guards say', (_name, value) => {
    expect(readJsonRpcMessage(value)?.kind).toBe(sdkKind(value));
  });
});

describe('error answers', () => {
  it('maps transport rejections to their HTTP status and keeps handler errors in-band', () => {
    expect([-32700, -32600, -32601, -32020, -32021, -32022, -32602].map((code) => httpStatusOf(code, 'transport'))).toEqual([400, 400, 404, 400, 400, 400, 400]);
    expect([-32601, -32602, -32603, -32020, -32021].map((code) => httpStatusOf(code, 'handler'))).toEqual([200, 200, 200, 200, 400]);
  });

  it('echoes a request id only from a body that names a method', () => {
    expect([echoableId({ method: 'x', id: 3 }), echoableId({ method: 'x', id: 'a' }), echoableId({ id: 3 }), echoableId([{ method: 'x', id: 1 }]), echoableId({ method: 'x', id: {} })]).toEqual([3, 'a', null, null, null]);
  });
});
