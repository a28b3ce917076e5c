import { describe, expect, it } from 'vitest';
import { paramHeaderRejection, paramRequestHeaders, scanParamHeaders } from '../../lib/mcp-wire/param-headers.ts';

const schema = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ type: 'object', properties, ...extra });

describe('x-mcp-header declarations', () => {
  it('finds them along properties chains, at any depth', () => {
    const scan = scanParamHeaders(schema({ region: { type: 'string', 'x-mcp-header': 'Region' }, target: { type: 'object', properties: { shard: { type: 'integer', 'x-mcp-header': 'Shard' } } }, plain: { type: 'string' } }));
    expect(scan).toEqual({ ok: true, headers: [{ path: ['region'], name: 'Region', type: 'string' }, { path: ['target', 'shard'], name: 'Shard', type: 'integer' }] });
  });

  it.each([
    ['on the root', { type: 'object', 'x-mcp-header': 'Root' }, 'only allowed on a property'],
    ['under items', schema({ list: { type: 'array', items: { type: 'string', 'x-mcp-header': 'Item' } } }), 'only allowed on a property'],
    ['under anyOf', schema({}, { anyOf: [schema({ a: { type: 'string', 'x-mcp-header': 'A' } })] }), 'only allowed on a property'],
    ['under $defs', schema({}, { $defs: { d: { type: 'string', 'x-mcp-header': 'D' } } }), 'only allowed on a property'],
    ['with a name that is not an HTTP token', schema({ a: { type: 'string', 'x-mcp-header': 'Bad Name' } }), 'must be an HTTP token'],
    ['with an empty name', schema({ a: { type: 'string', 'x-mcp-header': '' } }), 'must be an HTTP token'],
    ['on an object property', schema({ a: { type: 'object', 'x-mcp-header': 'A' } }), 'string, integer or boolean'],
    ['on a number property', schema({ a: { type: 'number', 'x-mcp-header': 'A' } }), 'string, integer or boolean'],
    ['twice, differing only in case', schema({ a: { type: 'string', 'x-mcp-header': 'Zone' }, b: { type: 'string', 'x-mcp-header': 'ZONE' } }), 'case-insensitive'],
  ])('refuses one %s', (_name, input, reason) => {
    const scan = scanParamHeaders(input);
    expect(scan.ok).toBe(false);
    if (!scan.ok) expect(scan.reason).toContain(reason);
  });
});

describe('Mcp-Param headers', () => {
  const declared = [
    { path: ['region'], name: 'Region', type: 'string' },
    { path: ['shard'], name: 'Shard', type: 'integer' },
    { path: ['dry'], name: 'Dry', type: 'boolean' },
  ];
  const check = (args: unknown, headers: Record<string, string>) => paramHeaderRejection(declared, args, new Headers(headers))?.error.message;

  it('accepts what a client builds from the arguments', () => {
    const args = { region: 'Zürich', shard: 12, dry: false };
    const headers = paramRequestHeaders(declared, args);
    expect(headers).toEqual({ 'Mcp-Param-Region': '=?base64?WsO8cmljaA==?=', 'Mcp-Param-Shard': '12', 'Mcp-Param-Dry': 'false' });
    expect(check(args, headers)).toBeUndefined();
  });

  it('expects no header for an absent or null argument, and ignores one that is sent anyway', () => {
    expect(check({}, {})).toBeUndefined();
    expect(check({ region: null }, { 'mcp-param-region': 'anything' })).toBeUndefined();
  });

  it('compares integers as numbers and everything else as text', () => {
    expect(check({ shard: 12 }, { 'mcp-param-shard': '12.0' })).toBeUndefined();
    expect(check({ shard: 12 }, { 'mcp-param-shard': '0xc' })).toContain('decodes to "0xc"');
    expect(check({ dry: true }, { 'mcp-param-dry': 'TRUE' })).toContain('decodes to "TRUE"');
  });

  it('refuses a missing, different or undecodable header with -32020', () => {
    const missing = paramHeaderRejection(declared, { region: 'eu' }, new Headers());
    expect(missing).toMatchObject({ status: 400, error: { code: -32020, data: { mismatch: { header: 'Mcp-Param-Region' } } } });
    expect(check({ region: 'eu' }, { 'mcp-param-region': 'us' })).toBe('Bad Request: the request headers and body disagree: the Mcp-Param-Region header decodes to "us" but the body carries region="eu"');
    expect(check({ region: 'eu' }, { 'mcp-param-region': '=?base64?ZXU?=' })).toContain('invalid Base64 sentinel');
  });

  it('leaves a value of the wrong type to argument validation', () => {
    expect(check({ region: { not: 'a string' } }, {})).toBeUndefined();
  });
});
