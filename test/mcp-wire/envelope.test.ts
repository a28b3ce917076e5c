import { describe, expect, it } from 'vitest';
import { classifyInbound } from '../../lib/mcp-wire/classify.ts';
import { claimedVersion, envelopeIssues, envelopeMeta, hasEnvelopeClaim, readEnvelope } from '../../lib/mcp-wire/envelope.ts';

const V = 'io.modelcontextprotocol/protocolVersion';
const CAPS = 'io.modelcontextprotocol/clientCapabilities';
const INFO = 'io.modelcontextprotocol/clientInfo';
const LEVEL = 'io.modelcontextprotocol/logLevel';

describe('the _meta envelope', () => {
  it('is claimed by the protocol-version key alone, whatever its value', () => {
    expect(hasEnvelopeClaim({ _meta: { [V]: 5 } })).toBe(true);
    expect(hasEnvelopeClaim({ _meta: { [CAPS]: {}, [INFO]: { name: 'c', version: '1' } } })).toBe(false);
    expect(hasEnvelopeClaim({ _meta: JSON.parse(`{"__proto__":{"${V}":"2026-07-28"}}`) })).toBe(false);
    expect([claimedVersion({ _meta: { [V]: '2026-07-28' } }), claimedVersion({ _meta: { [V]: 5 } }), claimedVersion(undefined)]).toEqual(['2026-07-28', undefined, undefined]);
  });

  it.each([
    ['a minimal envelope', { [V]: '2026-07-28', [CAPS]: {} }, []],
    ['client info is optional (a server must not require it)', { [V]: '2026-07-28', [CAPS]: { elicitation: { url: {} }, sampling: { tools: {} }, roots: { listChanged: true }, extensions: { 'io.modelcontextprotocol/tasks': {} } }, [LEVEL]: 'debug' }, []],
    ['missing keys, in the spec\'s order', {}, [`${V}: missing`, `${CAPS}: missing`]],
    ['a version that is not a string', { [V]: 1, [CAPS]: {} }, [`${V}: must be a string, got number 1`]],
    ['capabilities that are not an object', { [V]: 'x', [CAPS]: 'all' }, [`${CAPS}: must be an object, got the string "all"`]],
    ['a capability member of the wrong type', { [V]: 'x', [CAPS]: { sampling: { tools: true }, extensions: { ext: 1 }, roots: { listChanged: 'y' } } }, [`${CAPS}.extensions.ext: must be an object, got number 1`, `${CAPS}.sampling.tools: must be an object, got boolean true`, `${CAPS}.roots.listChanged: must be a boolean, got the string "y"`]],
    ['a client without a version', { [V]: 'x', [CAPS]: {}, [INFO]: { name: 'c' } }, [`${INFO}.version: must be a string, got nothing`]],
    ['an unknown log level', { [V]: 'x', [CAPS]: {}, [LEVEL]: 'loud' }, [`${LEVEL}: must be one of debug, info, notice, warning, error, critical, alert, emergency, got the string "loud"`]],
    ['a fractional progress token', { [V]: 'x', [CAPS]: {}, progressToken: 0.5 }, ['progressToken: must be a string or an integer, got number 0.5']],
  ])('%s', (_name, meta, expected) => {
    expect(envelopeIssues(meta as Record<string, unknown>).map((issue) => `${issue.key}: ${issue.problem}`)).toEqual(expected);
  });

  it('builds the envelope a client sends, which the server reads back and routes as modern', () => {
    const envelope = { protocolVersion: '2026-07-28', clientCapabilities: { elicitation: { url: {} } }, clientInfo: { name: 'toolgate', version: '1' }, logLevel: 'info' };
    const meta = { ...envelopeMeta(envelope), 'toolgate/thread_id': 't' };
    expect(envelopeIssues(meta)).toEqual([]);
    expect(readEnvelope(meta)).toEqual(envelope);
    const route = classifyInbound({ httpMethod: 'POST', headers: {}, body: { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: meta } } });
    expect(route).toMatchObject({ kind: 'modern', version: '2026-07-28' });
  });
});
