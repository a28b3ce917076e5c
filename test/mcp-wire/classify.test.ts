import { classifyInboundRequest } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { classifyInbound, type InboundRoute } from '../../lib/mcp-wire/classify.ts';
import { readStandardHeaders } from '../../lib/mcp-wire/standard-headers.ts';

/**
 * The era ladder, cell by cell, against the official SDK v2's `classifyInboundRequest` (a
 * devDependency) as the oracle. Where toolgate decides otherwise, the cell says so and why.
 */

const MODERN = '2026-07-28';
const ENVELOPE = { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': {} };
const req = (method: string, params?: Record<string, unknown>, id: number | string = 1) => ({ jsonrpc: '2.0', id, method, ...(params ? { params } : {}) });
const note = (method: string, params?: Record<string, unknown>) => ({ jsonrpc: '2.0', method, ...(params ? { params } : {}) });
const modern = (method: string, params: Record<string, unknown> = {}, meta: Record<string, unknown> = ENVELOPE) => req(method, { ...params, _meta: meta });
const INIT = { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'c', version: '1' } };

interface Cell {
  name: string;
  httpMethod?: string;
  headers?: Record<string, string>;
  body?: unknown;
  /** toolgate's verdict, in short: `legacy:<reason>[@version]`, `modern:<kind>@<version>` or `reject:<cell>/<status>/<code>`. */
  verdict: string;
  /** Why toolgate's verdict differs from the SDK v2's, when it does. */
  differs?: string;
}

const LEGACY_INVALID = 'a malformed message without any modern claim stays legacy traffic, answered as SDK v1 answers it (a -32700 parse error), so 2025 clients see no change';

const CELLS: Cell[] = [
  { name: 'GET', httpMethod: 'GET', verdict: 'legacy:http-method' },
  { name: 'DELETE with a modern header', httpMethod: 'DELETE', headers: { 'mcp-protocol-version': MODERN }, verdict: 'legacy:http-method' },
  { name: 'an empty batch', body: [], verdict: 'reject:empty-batch/400/-32600' },
  { name: 'a batch of legacy requests', body: [req('ping'), note('notifications/initialized')], verdict: 'legacy:batch' },
  { name: 'a batch holding a modern request', body: [req('ping'), modern('tools/list')], verdict: 'reject:batch-with-modern-element/400/-32600' },
  { name: 'a batch of one modern request', body: [modern('tools/list')], verdict: 'reject:batch-with-modern-element/400/-32600' },
  { name: 'a batch holding a malformed message', body: [req('ping'), { foo: 1 }], verdict: 'legacy:batch', differs: LEGACY_INVALID },
  { name: 'a posted result', body: { jsonrpc: '2.0', id: 1, result: {} }, verdict: 'legacy:response' },
  { name: 'a posted error', body: { jsonrpc: '2.0', id: 1, error: { code: -1, message: 'no' } }, verdict: 'legacy:response' },
  { name: 'a posted result with a modern header', headers: { 'mcp-protocol-version': MODERN }, body: { jsonrpc: '2.0', id: 1, result: {} }, verdict: 'legacy:response' },
  { name: 'initialize', body: req('initialize', INIT), verdict: 'legacy:initialize@2025-06-18' },
  { name: 'initialize with a legacy header', headers: { 'mcp-protocol-version': '2025-06-18' }, body: req('initialize', INIT), verdict: 'legacy:initialize@2025-06-18' },
  { name: 'initialize with a modern header', headers: { 'mcp-protocol-version': MODERN }, body: req('initialize', INIT), verdict: 'reject:initialize-with-modern-header/400/-32020' },
  { name: 'initialize with a valid modern envelope', body: modern('initialize', INIT), verdict: `modern:request@${MODERN}` },
  { name: 'initialize with a malformed envelope', body: modern('initialize', INIT, { 'io.modelcontextprotocol/protocolVersion': MODERN }), verdict: 'legacy:initialize@2025-06-18' },
  { name: 'initialize with an envelope naming a legacy revision', body: modern('initialize', INIT, { ...ENVELOPE, 'io.modelcontextprotocol/protocolVersion': '2025-06-18' }), verdict: 'legacy:initialize@2025-06-18' },
  { name: 'a request without envelope or header', body: req('tools/list'), verdict: 'legacy:no-claim' },
  { name: 'a request with a legacy header', headers: { 'mcp-protocol-version': '2025-11-25' }, body: req('tools/list'), verdict: 'legacy:no-claim@2025-11-25' },
  { name: 'a request with an unknown old header', headers: { 'mcp-protocol-version': '1999-01-01' }, body: req('tools/list'), verdict: 'legacy:no-claim@1999-01-01' },
  { name: 'a request with a modern header and no _meta', headers: { 'mcp-protocol-version': MODERN }, body: req('tools/list'), verdict: 'reject:modern-header-without-claim/400/-32602' },
  { name: 'a request with a modern header and _meta without the version', headers: { 'mcp-protocol-version': MODERN }, body: req('tools/list', { _meta: { progressToken: 1 } }), verdict: 'reject:modern-header-without-claim/400/-32602' },
  { name: 'a request with a future header and no _meta', headers: { 'mcp-protocol-version': '2099-01-01' }, body: req('tools/list'), verdict: 'reject:modern-header-without-claim/400/-32602' },
  { name: 'a request with a valid envelope and headers', headers: { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/list' }, body: modern('tools/list'), verdict: `modern:request@${MODERN}` },
  { name: 'a request with a valid envelope and no headers (refused one rung later)', body: modern('tools/list'), verdict: `modern:request@${MODERN}` },
  { name: 'a request whose headers carry optional whitespace', headers: { 'mcp-protocol-version': ` ${MODERN}\t`, 'mcp-method': ' tools/list ' }, body: modern('tools/list'), verdict: `modern:request@${MODERN}` },
  { name: 'an envelope without capabilities', body: modern('tools/list', {}, { 'io.modelcontextprotocol/protocolVersion': MODERN }), verdict: 'reject:envelope-invalid/400/-32602' },
  { name: 'an envelope whose version is a number', body: modern('tools/list', {}, { ...ENVELOPE, 'io.modelcontextprotocol/protocolVersion': 20260728 }), verdict: 'reject:envelope-invalid/400/-32602' },
  { name: 'an envelope with a malformed client', body: modern('tools/list', {}, { ...ENVELOPE, 'io.modelcontextprotocol/clientInfo': 'me' }), verdict: 'reject:envelope-invalid/400/-32602' },
  { name: 'an envelope with a malformed capability', body: modern('tools/list', {}, { ...ENVELOPE, 'io.modelcontextprotocol/clientCapabilities': { roots: { listChanged: 'yes' } } }), verdict: 'reject:envelope-invalid/400/-32602' },
  { name: 'an envelope with a vendor key and a progress token', body: modern('tools/list', {}, { ...ENVELOPE, progressToken: 'p', 'toolgate/thread_id': 't', traceparent: '00-x' }), verdict: `modern:request@${MODERN}` },
  { name: 'an envelope with capabilities toolgate does not know', body: modern('tools/list', {}, { ...ENVELOPE, 'io.modelcontextprotocol/clientCapabilities': { elicitation: {}, extensions: { 'io.modelcontextprotocol/tasks': {} }, future: 1 } }), verdict: `modern:request@${MODERN}` },
  { name: 'the version header differs from the envelope', headers: { 'mcp-protocol-version': '2025-11-25' }, body: modern('tools/list'), verdict: 'reject:header-body-version-mismatch/400/-32020' },
  { name: 'the method header differs from the body', headers: { 'mcp-method': 'tools/call' }, body: modern('tools/list'), verdict: 'reject:method-header-mismatch/400/-32020' },
  { name: 'an envelope naming a legacy revision', headers: { 'mcp-protocol-version': '2025-06-18' }, body: modern('tools/list', {}, { ...ENVELOPE, 'io.modelcontextprotocol/protocolVersion': '2025-06-18' }), verdict: 'modern:request@2025-06-18' },
  { name: 'an envelope naming a future revision', body: modern('tools/list', {}, { ...ENVELOPE, 'io.modelcontextprotocol/protocolVersion': '2099-01-01' }), verdict: 'modern:request@2099-01-01' },
  { name: 'a notification without envelope or header', body: note('notifications/initialized'), verdict: 'legacy:notification' },
  { name: 'a notification with a legacy header', headers: { 'mcp-protocol-version': '2025-06-18' }, body: note('notifications/cancelled', { requestId: 1 }), verdict: 'legacy:notification@2025-06-18' },
  { name: 'a notification with a modern header', headers: { 'mcp-protocol-version': MODERN }, body: note('notifications/cancelled', { requestId: 1 }), verdict: `modern:notification@${MODERN}` },
  { name: 'a notification with a modern header and another method header', headers: { 'mcp-protocol-version': MODERN, 'mcp-method': 'x' }, body: note('notifications/cancelled'), verdict: 'reject:notification-method-header-mismatch/400/-32020' },
  { name: 'a notification with an envelope', body: note('notifications/progress', { progressToken: 1, progress: 1, _meta: ENVELOPE }), verdict: `modern:notification@${MODERN}` },
  { name: 'a notification whose envelope version is not a string', body: note('notifications/progress', { _meta: { 'io.modelcontextprotocol/protocolVersion': 1 } }), verdict: 'reject:notification-envelope-invalid/400/-32602' },
  { name: 'a notification whose envelope and header disagree', headers: { 'mcp-protocol-version': '2025-06-18' }, body: note('notifications/progress', { _meta: ENVELOPE }), verdict: 'reject:notification-header-body-version-mismatch/400/-32020' },
  { name: 'a malformed message (an extra key)', body: { ...req('ping'), extra: 1 }, verdict: 'legacy:invalid', differs: LEGACY_INVALID },
  { name: 'a request with a null id', body: { jsonrpc: '2.0', id: null, method: 'ping' }, verdict: 'legacy:invalid', differs: LEGACY_INVALID },
  { name: 'a JSON number', body: 42, verdict: 'legacy:invalid', differs: LEGACY_INVALID },
  { name: 'a malformed message claiming the envelope', body: { ...modern('tools/list'), extra: 1 }, verdict: 'reject:invalid-json-rpc-body/400/-32600' },
  { name: 'a malformed message with a modern header', headers: { 'mcp-protocol-version': MODERN }, body: { jsonrpc: '2.0', id: 1, method: 'tools/list', params: [] }, verdict: 'reject:invalid-json-rpc-body/400/-32600' },
];

function ours(cell: Cell): string {
  return short(classifyInbound({ httpMethod: cell.httpMethod ?? 'POST', headers: readStandardHeaders(new Headers(cell.headers)), body: cell.body }));
}

function short(route: InboundRoute): string {
  if (route.kind === 'legacy') return `legacy:${route.reason}${route.requestedVersion ? `@${route.requestedVersion}` : ''}`;
  if (route.kind === 'modern') return `modern:${route.messageKind}@${route.version}`;
  return `reject:${route.cell}/${route.status}/${route.error.code}`;
}

function sdks(cell: Cell): string {
  const headers = cell.headers ?? {};
  const outcome = classifyInboundRequest({
    httpMethod: cell.httpMethod ?? 'POST',
    ...(headers['mcp-protocol-version'] !== undefined ? { protocolVersionHeader: headers['mcp-protocol-version'] } : {}),
    ...(headers['mcp-method'] !== undefined ? { mcpMethodHeader: headers['mcp-method'] } : {}),
    ...(cell.body !== undefined ? { body: cell.body } : {}),
  });
  if (outcome.kind === 'legacy') return `legacy:${outcome.reason}${outcome.requestedVersion ? `@${outcome.requestedVersion}` : ''}`;
  if (outcome.kind === 'modern') return `modern:${outcome.messageKind}@${outcome.classification.revision}`;
  return `reject:${outcome.cell}/${outcome.httpStatus}/${outcome.code}`;
}

describe('the era ladder, cell by cell', () => {
  it.each(CELLS.map((cell) => [cell.name, cell] as const))('%s', (_name, cell) => {
    expect(ours(cell)).toBe(cell.verdict);
    if (cell.differs) expect(sdks(cell)).not.toBe(cell.verdict);
    else expect(sdks(cell)).toBe(cell.verdict);
  });

  it('rejects with the messages and data the SDK v2 gives, where the wording is the transport\'s own', () => {
    const cells = CELLS.filter((cell) => cell.verdict.startsWith('reject:') && !/envelope-invalid/.test(cell.verdict));
    expect(cells.length).toBeGreaterThan(8);
    for (const cell of cells) {
      const route = classifyInbound({ httpMethod: 'POST', headers: readStandardHeaders(new Headers(cell.headers)), body: cell.body });
      const headers = cell.headers ?? {};
      const oracle = classifyInboundRequest({ httpMethod: 'POST', body: cell.body, ...(headers['mcp-protocol-version'] ? { protocolVersionHeader: headers['mcp-protocol-version'] } : {}), ...(headers['mcp-method'] ? { mcpMethodHeader: headers['mcp-method'] } : {}) });
      if (route.kind !== 'reject' || oracle.kind !== 'reject') throw new Error(`${cell.name}: expected both to reject`);
      expect({ message: route.error.message, data: route.error.data }, cell.name).toEqual({ message: oracle.message, data: oracle.data });
    }
  });

  it('names the offending envelope key as the SDK v2 does (the wording of the problem is toolgate\'s)', () => {
    for (const cell of CELLS.filter((c) => c.verdict.includes('envelope-invalid'))) {
      const route = classifyInbound({ httpMethod: 'POST', headers: readStandardHeaders(new Headers(cell.headers)), body: cell.body });
      const oracle = classifyInboundRequest({ httpMethod: 'POST', body: cell.body });
      if (route.kind !== 'reject' || oracle.kind !== 'reject') throw new Error(`${cell.name}: expected both to reject`);
      expect((route.error.data as { envelope: { key: string } }).envelope.key, cell.name).toBe((oracle.data as { envelope: { key: string } }).envelope.key);
    }
  });
});
