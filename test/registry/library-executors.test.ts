import { describe, expect, it } from 'vitest';
import { ToolRouter } from '../../lib/dispatch/router.ts';
import { ToolError } from '../../lib/registry/errors.ts';
import { ClientToolExecutor } from '../../lib/registry/executors/client.ts';
import { MockToolExecutor } from '../../lib/registry/executors/mock.ts';
import { MemoryStore } from '../../lib/stores/memory.ts';
import { testGateway } from '../helpers/gateway.ts';
import { validManifest } from '../helpers/manifests.ts';

const schema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };

describe('MockToolExecutor', () => {
  it('answers with the scripted results in order and records every call', async () => {
    const mock = new MockToolExecutor({ name: 'weather', input_schema: schema }, {
      results: ['sunny', { temp_c: 21 }, (args) => `raining in ${String(args.city)}`, new ToolError('unavailable', 'weather service down'), new Error('boom')],
    });
    const router = new ToolRouter();
    router.register(mock);
    const run = (call_id: string) => router.execute({ call_id, name: 'weather', arguments: { city: 'Oslo' } }, { thread_id: 'th', tenant: 't', principal: 'p' });
    expect((await run('1')).content).toBe('sunny');
    expect((await run('2')).content).toBe('{"temp_c":21}');
    expect((await run('3')).content).toBe('raining in Oslo');
    expect(await run('4')).toMatchObject({ status: 'unavailable', content: 'weather service down' });
    expect(await run('5')).toMatchObject({ status: 'error', content: 'Tool `weather` failed: boom' });
    expect(await run('6')).toMatchObject({ status: 'error', content: 'Tool `weather` failed: MockToolExecutor `weather` got call 6 but only 5 result(s) are scripted; add results or pass defaultResult' });
    expect(mock.calls).toHaveLength(6);
    expect(mock.calls[0]).toEqual({ arguments: { city: 'Oslo' }, call_id: '1', thread_id: 'th', tenant: 't', principal: 'p' });
    // Invalid arguments never reach it.
    expect(await router.execute({ call_id: '7', name: 'weather', arguments: {} })).toMatchObject({ status: 'invalid_arguments' });
    expect(mock.calls).toHaveLength(6);
    mock.reset();
    expect(mock.calls).toHaveLength(0);
    expect((await run('8')).content).toBe('sunny');
  });

  it('falls back to defaultResult once the script is used up', async () => {
    const mock = new MockToolExecutor({ name: 'ping' }, { results: ['first'], defaultResult: 'pong' });
    const router = new ToolRouter();
    router.register(mock);
    const contents = [];
    for (const id of ['a', 'b', 'c']) contents.push((await router.execute({ call_id: id, name: 'ping', arguments: {} })).content);
    expect(contents).toEqual(['first', 'pong', 'pong']);
  });
});

describe('ClientToolExecutor', () => {
  it('hands a governed, validated call back to the client instead of running it', async () => {
    const router = new ToolRouter();
    router.register(new ClientToolExecutor({ name: 'open_tab', description: 'Opens a browser tab.', input_schema: { type: 'object', properties: { url: { type: 'string' } }, required: ['url'] } }));
    expect(await router.execute({ call_id: 'c1', name: 'open_tab', arguments: '{"url":"https://example.com"}' })).toMatchObject({
      status: 'ok',
      is_error: false,
      content: 'Run `open_tab` in your client with these arguments; toolgate does not execute it.',
      client_call: { name: 'open_tab', arguments: { url: 'https://example.com' } },
    });
    const invalid = await router.execute({ call_id: 'c2', name: 'open_tab', arguments: {} });
    expect(invalid).toMatchObject({ status: 'invalid_arguments' });
    expect(invalid.client_call).toBeUndefined();
  });

  it('a write-tier client tool still waits for approval before it is handed out', async () => {
    const router = new ToolRouter(undefined, 5000, { store: new MemoryStore() });
    router.register(new ClientToolExecutor({ name: 'delete_file', tier: 'write', input_schema: { type: 'object', properties: { path: { type: 'string' } } } }));
    const parked = await router.execute({ call_id: 'd1', name: 'delete_file', arguments: { path: 'a.txt' } }, { principal: 'agent' });
    expect(parked.status).toBe('pending_approval');
    expect(parked.client_call).toBeUndefined();
    const decided = await router.submitApproval(parked.error!.details!.approval_id as string, { decision: 'approve', approver: 'alice' });
    expect(decided).toMatchObject({ ok: true, result: { status: 'ok', client_call: { name: 'delete_file', arguments: { path: 'a.txt' } } } });
    // The agent learns it by sending the same call again: the stored result, client_call included.
    expect(await router.execute({ call_id: 'd1', name: 'delete_file', arguments: { path: 'a.txt' } }, { principal: 'agent' })).toMatchObject({ status: 'ok', replayed: true, client_call: { name: 'delete_file' } });
  });

  it('a manifest tool of kind client, through the gateway', async () => {
    const manifest = validManifest({
      policy: { read: 'grant', write: 'review', execute: 'review' },
      tools: [
        { name: 'show_chart', description: 'Renders a chart in the user interface.', tier: 'read', input_schema: { type: 'object', properties: { series: { type: 'array' } } }, executor: { kind: 'client' } },
        { name: 'send_mail', description: "Sends mail from the user's own mail client.", tier: 'write', input_schema: { type: 'object', properties: { to: { type: 'string' } } }, executor: { kind: 'client' } },
      ],
    });
    const gw = await testGateway([manifest], { agent: { tenant: 'acme', principal: 'agent' }, alice: { tenant: 'acme', principal: 'alice', scopes: ['approvals:decide'] } });
    const response = await gw.request('/v1/dispatch', { key: 'agent', json: { thread_id: 'ui', calls: [{ call_id: 'a', name: 'show_chart', arguments: { series: [1, 2] } }, { call_id: 'b', name: 'send_mail', arguments: { to: 'bo@example.com' } }] } });
    const { results } = (await response.json()) as { results: Array<Record<string, unknown> & { error?: { details: { approval_id: string } } }> };
    expect(results[0]).toMatchObject({ status: 'ok', client_call: { name: 'show_chart', arguments: { series: [1, 2] } } });
    expect(results[1]).toMatchObject({ status: 'pending_approval' });
    expect(results[1].client_call).toBeUndefined();
    await gw.request(`/v1/approvals/${results[1].error!.details.approval_id}`, { key: 'alice', json: { decision: 'approve' } });
    const polled = (await (await gw.request('/v1/calls/b?thread_id=ui', { key: 'agent' })).json()) as { result: unknown };
    expect(polled.result).toMatchObject({ status: 'ok', client_call: { name: 'send_mail', arguments: { to: 'bo@example.com' } } });
  });
});
