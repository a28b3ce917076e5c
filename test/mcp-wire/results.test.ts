import { describe, expect, it } from 'vitest';
import { completeResult, resultTypeOf } from '../../lib/mcp-wire/results.ts';

const stamp = { serverInfo: { name: 'toolgate', version: '7' }, cache: { ttlMs: 1234.9, cacheScope: 'private' as const }, meta: { 'toolgate/manifest_version': '7' } };

describe('complete results', () => {
  it('stamps a cacheable result with resultType, cache hints and the server in _meta, and drops deleted vocabulary', () => {
    const result = completeResult('tools/list', { tools: [{ name: 'a', inputSchema: {}, execution: { taskSupport: 'optional' } }] }, stamp);
    expect(result).toEqual({
      tools: [{ name: 'a', inputSchema: {} }],
      resultType: 'complete',
      ttlMs: 1234,
      cacheScope: 'private',
      _meta: { 'toolgate/manifest_version': '7', 'io.modelcontextprotocol/serverInfo': { name: 'toolgate', version: '7' } },
    });
    expect(resultTypeOf(result)).toBe('complete');
  });

  it('keeps a result\'s own _meta, gives no cache hints where none apply, and never lets the payload set serverInfo', () => {
    const result = completeResult('tools/call', { content: [], _meta: { 'toolgate/status': 'ok', 'io.modelcontextprotocol/serverInfo': 'forged' } }, stamp);
    expect(result).toEqual({ content: [], resultType: 'complete', _meta: { 'toolgate/status': 'ok', 'toolgate/manifest_version': '7', 'io.modelcontextprotocol/serverInfo': { name: 'toolgate', version: '7' } } });
    expect(completeResult('server/discover', {}, { ...stamp, cache: { ttlMs: -5, cacheScope: 'private' } }).ttlMs).toBe(0);
    expect(resultTypeOf({ tools: [] })).toBeUndefined();
  });
});
