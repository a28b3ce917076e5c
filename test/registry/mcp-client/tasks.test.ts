/**
 * Tools an upstream runs only as tasks (2025-11-25, `execution.taskSupport: "required"`): toolgate
 * calls them as tasks, polls them within the tool's timeout and cancels them when it gives up; an
 * upstream that cannot take tasks has such tools refused at import, never pinned uncallable.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { nodeEgressTransport } from '../../../lib/cli/node-egress.ts';
import type { Manifest, McpImport } from '../../../lib/registry/manifest/manifest.ts';
import { importMcpTools, pinMcpImports } from '../../../lib/registry/mcp-upstream/import.ts';
import { testGateway } from '../../helpers/gateway.ts';
import { validManifest } from '../../helpers/manifests.ts';
import { startTaskUpstream, type TaskUpstream } from '../../helpers/mcp-task-upstream.ts';

let upstream: TaskUpstream;
beforeEach(async () => { upstream = await startTaskUpstream(); });
afterEach(async () => { await upstream.close(); });

const withImport = (spec: Partial<McpImport>) => validManifest({ policy: { read: 'grant', write: 'deny', execute: 'deny' }, mcp_imports: [{ server: 'lab', url: upstream.url, tools: 'all', tier: 'read', ...spec }] });

async function dispatch(manifest: Manifest, args: unknown) {
  const gw = await testGateway([manifest], { agent: { tenant: 'acme', principal: 'agent' } }, { egressTransport: nodeEgressTransport() });
  const response = await gw.request('/v1/dispatch', { key: 'agent', json: { thread_id: 'tasks', calls: [{ call_id: 'c1', name: 'research', arguments: args }] } });
  return ((await response.json()) as { results: Array<{ status: string; content: string; structured_content?: unknown }> }).results[0];
}

describe('a tool that runs only as a task', () => {
  it('is pinned to be called as a task, and its call polls the task to its result', async () => {
    const manifest = validManifest(await importMcpTools(withImport({ timeout_ms: 10_000 }), {}));
    expect(manifest.tools.find((t) => t.name === 'research')?.executor).toMatchObject({ task_support: 'required', protocol: '2025-11-25' });
    expect(await dispatch(manifest, { topic: 'tides', ms: 300 })).toMatchObject({ status: 'ok', content: 'report on tides', structured_content: { sources: 3 } });
    const call = upstream.methods.lastIndexOf('tools/call');
    expect(upstream.methods.slice(call)).toEqual(expect.arrayContaining(['tools/call', 'tasks/get', 'tasks/result']));
    expect(upstream.methods).not.toContain('tasks/cancel');
  });

  it('is cancelled upstream when the call times out', async () => {
    const manifest = validManifest(await importMcpTools(withImport({ timeout_ms: 400 }), {}));
    expect(await dispatch(manifest, { topic: 'everything', ms: 60_000 })).toMatchObject({ status: 'timeout' });
    await expect.poll(() => upstream.methods).toContain('tasks/cancel');
  });

  it('is refused at import when the upstream takes no tasks: named explicitly, the import stops; with "all", it is left out and reported', async () => {
    const named = await importMcpTools(withImport({ url: upstream.noTasksUrl, tools: ['research'] }), {}).then(() => 'imported', (error: Error) => error.message);
    expect(named).toBe(
      'mcp_imports[0] ("lab"): toolgate cannot call upstream tool "research": it runs only as a task (execution.taskSupport "required"), and the server does not take tools/call as a task (no tasks.requests.tools.call capability); leave it out of "tools"',
    );
    const all = await pinMcpImports(withImport({ url: upstream.noTasksUrl }), {});
    expect(all.pinned.map((pin) => pin.name)).toEqual(['lookup']);
    expect(all.skipped).toEqual([{ server: 'lab', tool: 'research', reason: expect.stringContaining('runs only as a task') }]);
  });
});
