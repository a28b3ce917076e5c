import { describe, expect, it } from 'vitest';
import type { ToolResult } from '../../lib/dispatch/call.ts';
import { PNG_1X1 } from '../helpers/content.ts';
import { testGateway } from '../helpers/gateway.ts';
import { validManifest } from '../helpers/manifests.ts';

/**
 * Attacks on content parts and the client result route (POST /v1/calls/:call_id/result): who may
 * post, how often, and what a posted (hostile) CallToolResult can make the gateway store and send.
 */
async function gateway() {
  const browser = { name: 'browser_shot', description: 'A screenshot the client takes.', tier: 'write', input_schema: { type: 'object' }, executor: { kind: 'client' }, output: { max_chars: 1000 } };
  const secret = { name: 'vault_read', description: 'Needs a scope.', tier: 'write', input_schema: { type: 'object' }, executor: { kind: 'client' }, scopes: ['vault'] };
  const acme = validManifest({ tenant: 'acme', policy: { read: 'grant', write: 'grant', execute: 'deny' }, tools: [browser, secret, { name: 'echo', executor: { kind: 'builtin' } }] });
  const other = validManifest({ tenant: 'other', policy: { read: 'grant', write: 'grant', execute: 'deny' }, tools: [browser] });
  return testGateway([acme, other], {
    agent: { tenant: 'acme', principal: 'agent', scopes: ['vault', 'audit:read'] },
    weak: { tenant: 'acme', principal: 'weak' },
    // The same principal as agent through a key without the vault scope.
    narrow: { tenant: 'acme', principal: 'agent' },
    intruder: { tenant: 'other', principal: 'intruder' },
  });
}
type Gateway = Awaited<ReturnType<typeof gateway>>;

const handOut = async (gw: Gateway, call_id: string, name = 'browser_shot', thread_id = 'th', key = 'agent') => {
  const response = await gw.request('/v1/dispatch', { key, json: { thread_id, calls: [{ call_id, name, arguments: {} }] } });
  const result = (await response.json()).results[0] as ToolResult;
  expect(result.client_call).toBeDefined();
  return result;
};
const postResult = (gw: Gateway, call_id: string, body: Record<string, unknown>, key = 'agent') =>
  gw.request(`/v1/calls/${encodeURIComponent(call_id)}/result`, { key, json: { thread_id: 'th', ...body } });

describe('attacks: the client result route', () => {
  it('another tenant, another thread, another principal or a key without the tool\'s scope cannot post; the hand-out stays postable', async () => {
    const gw = await gateway();
    await handOut(gw, 'c1');
    await handOut(gw, 'v1', 'vault_read');
    expect((await postResult(gw, 'c1', { content: [{ type: 'text', text: 'forged' }] }, 'intruder')).status).toBe(404);
    expect((await postResult(gw, 'c1', { thread_id: 'other-thread', content: [{ type: 'text', text: 'forged' }] })).status).toBe(404);
    // Another principal of the tenant: not its call (the record names its principal), so unknown.
    expect((await postResult(gw, 'v1', { content: [{ type: 'text', text: 'forged' }] }, 'weak')).status).toBe(404);
    expect((await postResult(gw, 'v1', { content: [{ type: 'text', text: 'forged' }] }, 'narrow')).status).toBe(403);
    // A call that is not a client call (echo, a read with no stored record) takes no result.
    await gw.request('/v1/dispatch', { key: 'agent', json: { thread_id: 'th', calls: [{ call_id: 'e1', name: 'echo', arguments: { text: 'x' } }] } });
    expect([404, 409]).toContain((await postResult(gw, 'e1', { content: [] })).status);
    expect((await postResult(gw, 'c1', { content: [{ type: 'text', text: 'real' }] })).status).toBe(200);
    expect((await postResult(gw, 'v1', { content: [{ type: 'text', text: 'real' }] })).status).toBe(200);
  });

  it('of many concurrent posts exactly one wins, and the replay is the winner\'s', async () => {
    const gw = await gateway();
    await handOut(gw, 'race');
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => postResult(gw, 'race', { content: [{ type: 'text', text: `post ${i}` }] })));
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(19);
    const winner = (await answers[statuses.indexOf(200)]!.json()).result.content;
    const replay = await gw.request('/v1/dispatch', { key: 'agent', json: { thread_id: 'th', calls: [{ call_id: 'race', name: 'browser_shot', arguments: {} }] } });
    expect((await replay.json()).results[0]).toMatchObject({ replayed: true, content: winner });
  });

  it('a post for a native command id (x:0) of a shell_call or with odd characters in the id is answered, never a 500', async () => {
    const gw = await gateway();
    for (const id of ['x:0', '..%2F..', '%00', 'a'.repeat(201), '__proto__', 'constructor']) {
      const response = await gw.request(`/v1/calls/${id}/result`, { key: 'agent', json: { thread_id: 'th', content: [] } });
      expect(response.status, id).toBeLessThan(500);
    }
  });

  it('prototype keys and misnamed fields in the body are 400s naming them', async () => {
    const gw = await gateway();
    await handOut(gw, 'p1');
    for (const raw of ['{"thread_id":"th","content":[],"__proto__":{"isError":true}}', '{"thread_id":"th","content":[],"constructor":{}}', '{"thread_id":"th","content":[],"toString":1}']) {
      const response = await gw.request('/v1/calls/p1/result', { key: 'agent', method: 'POST', body: raw, headers: { 'content-type': 'application/json' } });
      expect(response.status, raw).toBe(400);
      expect((await response.json()).error.message).toMatch(/unknown field/);
    }
    const deep = `{"thread_id":"th","content":[],"structuredContent":${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}}`;
    const deepAnswer = await gw.request('/v1/calls/p1/result', { key: 'agent', method: 'POST', body: deep, headers: { 'content-type': 'application/json' } });
    expect(deepAnswer.status).toBe(400);
    // Still waiting for its output.
    expect((await postResult(gw, 'p1', { content: [{ type: 'text', text: 'ok' }] })).status).toBe(200);
  });
});

describe('attacks: hostile content parts (posted by a client)', () => {
  const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>').toString('base64');
  const html = Buffer.from('<html><script>alert(1)</script></html>').toString('base64');
  /** A PNG signature and bytes whose base64 holds + and /, in the URL-safe alphabet. */
  const urlSafe = Buffer.concat([Buffer.from(PNG_1X1, 'base64').subarray(0, 8), Buffer.from([0xfb, 0xef, 0xff, 0xfb])]).toString('base64').replace(/\+/g, '-').replace(/\//g, '_');

  it('SVG or HTML under an image label, non-standard base64 and data-URL tricks never reach a provider as an image', async () => {
    const gw = await gateway();
    await handOut(gw, 'img');
    const parts = [
      { type: 'image', data: svg, mimeType: 'image/png' },
      { type: 'image', data: svg, mimeType: 'image/svg+xml' },
      { type: 'image', data: svg, mimeType: 'IMAGE/SVG+XML' },
      { type: 'image', data: html, mimeType: 'text/html' },
      { type: 'image', data: `${PNG_1X1.slice(0, 20)}\n${PNG_1X1.slice(20)}`, mimeType: 'image/png' },
      { type: 'image', data: urlSafe, mimeType: 'image/png' },
      { type: 'image', data: PNG_1X1, mimeType: 'image/png;base64,AAAA' },
      { type: 'image', data: `${PNG_1X1}"`, mimeType: 'image/png' },
      { type: 'image', data: PNG_1X1, mimeType: 'image/png' },
    ];
    const response = await postResult(gw, 'img', { format: 'anthropic', content: parts });
    expect(response.status).toBe(200);
    const answer = (await response.json()) as { result: ToolResult; messages: Array<{ content: Array<{ content: Array<{ type: string; source?: { data: string } }> }> }> };
    const blocks = answer.messages[0]!.content[0]!.content;
    // Only the real PNG is sent as an image; everything else is a text note.
    expect(blocks.filter((b) => b.type === 'image').map((b) => b.source!.data)).toEqual([PNG_1X1]);
    expect(JSON.stringify(answer.messages)).not.toContain(svg);
    expect(JSON.stringify(answer.messages)).not.toContain(html);
  });

  it('many tiny parts are capped at 256 with a note; a huge error text is capped', async () => {
    const gw = await gateway();
    await handOut(gw, 'many');
    const many = await postResult(gw, 'many', { content: Array.from({ length: 30_000 }, () => ({ type: 'text', text: '' })) });
    expect(many.status).toBe(200);
    const result = (await many.json()).result as ToolResult;
    expect(result.content_parts?.length ?? 0).toBeLessThanOrEqual(257);
    await handOut(gw, 'err');
    const error = await postResult(gw, 'err', { isError: true, content: [{ type: 'text', text: 'e'.repeat(900_000) }] });
    expect(((await error.json()).result as ToolResult).content.length).toBeLessThan(11_000);
  });

  it('resource links and resource URIs cannot carry more text to the model or the store than the tool\'s max_chars allows', async () => {
    const gw = await gateway();
    await handOut(gw, 'links');
    // 200 links of 4,000 characters each: 800,000 characters, where browser_shot keeps 1,000.
    const links = Array.from({ length: 200 }, (_, i) => ({ type: 'resource_link', uri: `https://example.com/${i}/${'a'.repeat(4000)}`, name: `n${i}`, description: 'd'.repeat(100) }));
    const response = await postResult(gw, 'links', { content: [{ type: 'text', text: 'hello' }, ...links] });
    expect(response.status).toBe(200);
    const result = (await response.json()).result as ToolResult;
    // Bounded by max_chars plus one truncation note per cut part (at most 256 parts), not by what was sent.
    expect(result.content.length).toBeLessThan(1000 + 256 * 300);
    expect(JSON.stringify(result.content_parts).length).toBeLessThan(1000 + 256 * 350);
    expect(result.truncated).toBe(true);
    // A short link stays a link.
    await handOut(gw, 'short');
    const short = (await (await postResult(gw, 'short', { content: [{ type: 'resource_link', uri: 'https://example.com/a', name: 'a' }] })).json()).result as ToolResult;
    expect(short.content_parts).toEqual([{ type: 'resource_link', uri: 'https://example.com/a', name: 'a' }]);
    // An embedded resource's uri is a label: a huge one drops the part.
    await handOut(gw, 'uri');
    const uri = (await (await postResult(gw, 'uri', { content: [{ type: 'resource', resource: { uri: `https://e.example/${'u'.repeat(500_000)}`, text: 'x' } }] })).json()).result as ToolResult;
    expect(uri.content.length).toBeLessThan(1000);
  });
});
