import { describe, expect, it } from 'vitest';
import { testGateway } from '../helpers/gateway.ts';
import { validManifest } from '../helpers/manifests.ts';

/**
 * Attacks on strict request shapes and on what the new formats echo back: prototype keys,
 * toolgate fields smuggled into a provider body, attacker text in messages, another tenant named.
 */
async function gateway() {
  const tools = [{ name: 'echo', executor: { kind: 'builtin' } }];
  return testGateway(
    [
      // An exec-server that is never reached: the calls here are refused before they would run.
      validManifest({ tenant: 'acme', profile: 'anthropic', policy: { read: 'grant', write: 'grant', execute: 'grant' }, execution_environment: { url: 'http://127.0.0.1:9', secret: 'env:EXEC_SECRET' }, tools }),
      validManifest({ tenant: 'other', policy: { read: 'grant', write: 'grant', execute: 'grant' }, tools }),
    ],
    { agent: { tenant: 'acme', principal: 'agent', scopes: ['audit:read'] } },
    { env: { EXEC_SECRET: 'never-used-secret-0123456789abcdef0123456789', TOOLGATE_TENANT_SECRETS: 'acme:EXEC_SECRET' } },
  );
}

const raw = (gw: Awaited<ReturnType<typeof gateway>>, path: string, body: string) =>
  gw.request(path, { key: 'agent', method: 'POST', body, headers: { 'content-type': 'application/json' } });

describe('attacks: strict shapes', () => {
  it('prototype keys at the top level, in calls and in provider bodies are 400s naming them; nothing runs', async () => {
    const gw = await gateway();
    const bodies = [
      '{"thread_id":"t","calls":[],"__proto__":{"parallel":true}}',
      '{"thread_id":"t","calls":[{"name":"echo","arguments":{"text":"x"},"__proto__":{"call_id":"forged"}}]}',
      '{"thread_id":"t","calls":[{"name":"echo","arguments":{"text":"x"},"constructor":{"name":"shell"}}]}',
      '{"thread_id":"t","format":"responses","output":[],"__proto__":{"output":[]}}',
      '{"thread_id":"t","format":"anthropic","content":[],"hasOwnProperty":1}',
    ];
    for (const body of bodies) {
      const response = await raw(gw, '/v1/dispatch', body);
      expect(response.status, body).toBe(400);
      expect((await response.json()).error.message, body).toMatch(/unknown field/);
    }
  });

  it('a provider body cannot smuggle toolgate\'s calls or another tenant', async () => {
    const gw = await gateway();
    const smuggled = await gw.request('/v1/dispatch', { key: 'agent', json: { thread_id: 't', format: 'responses', output: [], calls: [{ name: 'echo', arguments: { text: 'x' } }] } });
    expect(smuggled.status).toBe(400);
    expect((await smuggled.json()).error.message).toMatch(/^calls: unknown field; with format "responses" the calls are read from output/);
    const tenant = await gw.request('/v1/dispatch', { key: 'agent', json: { thread_id: 't', format: 'responses', tenant: 'other', output: [{ type: 'function_call', call_id: 'c', name: 'echo', arguments: '{"text":"x"}' }] } });
    expect(tenant.status).toBe(404);
  });

  it('what a message echoes of a sent value is cut short (a 500,000-character format or text-editor command)', async () => {
    const gw = await gateway();
    const huge = 'x'.repeat(500_000);
    const format = await gw.request('/v1/dispatch', { key: 'agent', json: { thread_id: 't', format: huge, calls: [] } });
    expect(format.status).toBe(400);
    expect((await format.json()).error.message.length).toBeLessThan(300);
    const posted = await gw.request('/v1/calls/c1/result', { key: 'agent', json: { thread_id: 't', format: huge, content: [] } });
    expect(posted.status).toBe(400);
    expect((await posted.json()).error.message.length).toBeLessThan(300);
    const native = async (input: Record<string, unknown>) => {
      const response = await gw.request('/v1/dispatch', { key: 'agent', json: { thread_id: 't', format: 'anthropic', content: [{ type: 'tool_use', id: `toolu_${Math.random()}`, name: 'str_replace_based_edit_tool', input }] } });
      return ((await response.json()) as { results: Array<{ status: string; content: string }> }).results[0]!;
    };
    for (const input of [{ command: huge, path: 'notes.txt' }, { command: 'view', path: 'notes.txt', view_range: Array.from({ length: 50_000 }, () => 1) }, { command: 'insert', path: 'notes.txt', insert_line: huge, insert_text: 'x' }]) {
      const result = await native(input);
      expect(result.status).toBe('invalid_arguments');
      expect(result.content.length).toBeLessThan(400);
    }
  });

  it('native calls answered at planning (bad text-editor input, bash restart) are audited like any refused call', async () => {
    const gw = await gateway();
    const content = [
      { type: 'tool_use', id: 'toolu_bad', name: 'str_replace_based_edit_tool', input: { command: 'delete', path: 'notes.txt' } },
      { type: 'tool_use', id: 'toolu_range', name: 'str_replace_based_edit_tool', input: { command: 'view', path: 'notes.txt', view_range: [5, 2] } },
      { type: 'tool_use', id: 'toolu_restart', name: 'bash', input: { restart: true } },
    ];
    const dispatched = (await (await gw.request('/v1/dispatch', { key: 'agent', json: { thread_id: 'audit-native', format: 'anthropic', content } })).json()) as { results: Array<{ call_id: string; status: string }> };
    expect(dispatched.results.map((r) => [r.call_id, r.status])).toEqual([['toolu_bad', 'invalid_arguments'], ['toolu_range', 'invalid_arguments'], ['toolu_restart', 'ok']]);
    await gw.request('/v1/dispatch', { key: 'agent', json: { thread_id: 'audit-native', calls: [{ call_id: 'plain_bad', name: 'echo', arguments: { nope: 1 } }] } });
    const { envelopes } = (await (await gw.request('/v1/audit?thread_id=audit-native', { key: 'agent' })).json()) as { envelopes: Array<{ call_id?: string; type: string; data: Record<string, unknown> }> };
    const of = (id: string) => envelopes.filter((e) => e.call_id === id);
    for (const id of ['plain_bad', 'toolu_bad', 'toolu_range', 'toolu_restart']) {
      expect(of(id).map((e) => e.type), id).toEqual(['tool.call.request', 'tool.call.decision', 'tool.call.result']);
    }
    expect(of('plain_bad')[1]!.data).toMatchObject({ decision: 'rejected', stage: 'validate', reason: 'invalid_arguments' });
    expect(of('toolu_bad')[1]!.data).toMatchObject({ decision: 'rejected', stage: 'plan', reason: 'invalid_arguments' });
    expect(of('toolu_bad')[2]!.data).toMatchObject({ status: 'invalid_arguments', is_error: true });
    expect(of('toolu_restart')[1]!.data).toMatchObject({ decision: 'answered', stage: 'plan' });
    expect(of('toolu_restart')[2]!.data).toMatchObject({ status: 'ok', is_error: false });
  });
});
