import { describe, expect, it } from 'vitest';
import { decodeHeaderValue, encodeHeaderValue, stripOws } from '../../lib/mcp-wire/header-value.ts';
import { mcpNameSource, readStandardHeaders, standardHeaderRejection, standardRequestHeaders } from '../../lib/mcp-wire/standard-headers.ts';
import { sdkV2Endpoint } from '../helpers/mcp-v2-oracle.ts';

const MODERN = '2026-07-28';
const ENVELOPE = { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': {} };

describe('header values', () => {
  it.each([
    ['plain ASCII', 'echo', 'echo'],
    ['interior space and tab', 'a b\tc', 'a b\tc'],
    ['non-ASCII', 'Zürich', '=?base64?WsO8cmljaA==?='],
    ['an emoji', '🙂', '=?base64?8J+Zgg==?='],
    ['leading whitespace', ' x', '=?base64?IHg=?='],
    ['a trailing tab', 'x\t', '=?base64?eAk=?='],
    ['a control character', 'a\nb', '=?base64?YQpi?='],
    ['an empty string', '', '=?base64??='],
    ['text that looks like the sentinel', '=?base64?abc?=', '=?base64?PT9iYXNlNjQ/YWJjPz0=?='],
  ])('%s', (_name, value, header) => {
    expect(encodeHeaderValue(value)).toBe(header);
    expect(decodeHeaderValue(header)).toBe(value);
  });

  it('refuses a sentinel that is not canonical base64 of UTF-8', () => {
    for (const header of ['=?base64?ZWNobw?=', '=?base64?ZWNobw=?=', '=?base64?ZW Nobw==?=', '=?base64?/w==?=', '=?base64?****?=']) expect(decodeHeaderValue(header), header).toBeUndefined();
    expect(decodeHeaderValue('=?base64?=')).toBe('');
    expect(decodeHeaderValue('=?base64')).toBe('=?base64');
  });

  it('round-trips any string', () => {
    const alphabet = ['a', ' ', '\t', 'é', '😀', '=', '?', 'base64', '\u0000', '\u007f', '\ud7ff'];
    for (let i = 0; i < 2000; i++) {
      let value = '';
      for (let j = (i * 7) % 9; j > 0; j--) value += alphabet[(i * 31 + j * 17) % alphabet.length];
      expect(decodeHeaderValue(encodeHeaderValue(value))).toBe(value);
      expect(encodeHeaderValue(value)).toMatch(/^[\t\x20-\x7e]*$/);
    }
  });

  it('strips only the whitespace HTTP allows around a value', () => {
    expect([stripOws(' \tx y\t '), stripOws('x'), stripOws('\nx')]).toEqual(['x y', 'x', '\nx']);
  });

  it('accepts and refuses the same Mcp-Name values as the SDK v2 endpoint', async () => {
    const oracle = sdkV2Endpoint();
    const values = ['echo', '=?base64?ZWNobw==?=', '=?base64?ZWNobw?=', '=?base64?ZWNobw=?=', '=?base64?ZWNobw==', 'ECHO', 'echo ', '=?base64??=', '=?base64?=', '=?base64?IGVjaG8=?='];
    for (const name of values) {
      const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { text: 'x' }, _meta: ENVELOPE } });
      const answer = await oracle(new Request('http://oracle/mcp', { method: 'POST', headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json', 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': name }, body }));
      const ours = standardHeaderRejection(readStandardHeaders(new Headers({ 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': name })), { method: 'tools/call', params: { name: 'echo' }, version: MODERN });
      expect(ours === undefined, name).toBe(answer.status === 200);
    }
  });
});

describe('standard headers', () => {
  it('knows which body field Mcp-Name mirrors', () => {
    expect([mcpNameSource('tools/call', { name: 'x' }), mcpNameSource('resources/read', { uri: 'u' }), mcpNameSource('tasks/get', { taskId: 5 }), mcpNameSource('tools/list', {}), mcpNameSource('constructor', {})]).toEqual([
      { field: 'name', value: 'x' },
      { field: 'uri', value: 'u' },
      { field: 'taskId', value: undefined },
      undefined,
      undefined,
    ]);
  });

  it('builds a client\'s headers, which pass the server\'s check', () => {
    const headers = standardRequestHeaders(MODERN, 'resources/read', { uri: 'file:///tmp/é.txt' });
    expect(headers).toEqual({ 'MCP-Protocol-Version': MODERN, 'Mcp-Method': 'resources/read', 'Mcp-Name': '=?base64?ZmlsZTovLy90bXAvw6kudHh0?=' });
    expect(standardHeaderRejection(readStandardHeaders(new Headers(headers)), { method: 'resources/read', params: { uri: 'file:///tmp/é.txt' }, version: MODERN })).toBeUndefined();
  });

  it('asks for the version header first, then the method, then the name', () => {
    const check = (headers: Record<string, string>) => standardHeaderRejection(readStandardHeaders(new Headers(headers)), { method: 'tools/call', params: { name: 'echo' }, version: MODERN })?.error.message;
    expect(check({})).toContain('required MCP-Protocol-Version header is absent');
    expect(check({ 'mcp-protocol-version': MODERN })).toContain('required Mcp-Method header is absent');
    expect(check({ 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call' })).toContain('required Mcp-Name header is absent');
    expect(check({ 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': 'echo' })).toBeUndefined();
  });
});
