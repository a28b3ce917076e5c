import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalGateway, type LocalGateway } from '../../lib/cli/serve.ts';

/**
 * Issue 23, finding 1, end to end as `npm start` runs it (the demo manifest, the real
 * exec-server, bubblewrap): over MCP a repeated command runs again and sees the workspace as it
 * is now; a call waiting for approval is still found again by its identical twin.
 */

let scratch: string;
let workspace: string;
let gateway: LocalGateway;
const clients: Array<{ close(): Promise<void> }> = [];

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'toolgate-mcp-fresh-'));
  workspace = join(scratch, 'workspace');
  mkdirSync(workspace);
  gateway = await startLocalGateway({
    port: 0,
    dataDir: join(scratch, '.toolgate'),
    quiet: true,
    env: { PATH: process.env.PATH, TOOLGATE_WORKSPACE: workspace, TOOLGATE_EXEC_PORT: '0' },
  });
}, 60_000);

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await gateway?.close();
  rmSync(scratch, { recursive: true, force: true });
});

async function v1(): Promise<Client> {
  const client = new Client({ name: 'e2e-v1', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${gateway.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${gateway.demoKey}` } } }));
  clients.push(client);
  return client;
}

async function v2(): Promise<ClientV2> {
  const client = new ClientV2({ name: 'e2e-v2', version: '1' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  await client.connect(new TransportV2(new URL(`${gateway.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${gateway.demoKey}` } } }));
  clients.push(client);
  return client;
}

const text = (result: unknown) => (result as { content: Array<{ text: string }> }).content.map((part) => part.text).join('');

describe('over MCP, a repeated command runs again', () => {
  it('write "first state", `cat` it, write "second state", `cat` again: the second answer says "second state" (SDK v1 and v2 clients)', async () => {
    for (const [name, client] of [['v1', await v1()], ['v2', await v2()]] as const) {
      const file = `state-${name}.txt`;
      const cat = () => client.callTool({ name: 'shell', arguments: { command: `cat ${file}` } });
      writeFileSync(join(workspace, file), 'first state\n');
      const first = await cat();
      expect([first.isError, first._meta?.['toolgate/status']], name).toEqual([false, 'ok']);
      expect(text(first), name).toContain('first state');
      writeFileSync(join(workspace, file), 'second state\n');
      const second = await cat();
      expect(text(second), name).toContain('second state');
      expect(text(second), name).not.toContain('first state');
      expect(second._meta, name).not.toHaveProperty('toolgate/replayed');
    }
  });

  it('a write waiting for approval is found again by its identical twin (not parked twice), runs once approved, and its outcome is delivered once', async () => {
    const client = await v1();
    const write = () => client.callTool({ name: 'write_file', arguments: { file_path: 'approved.txt', content: 'approved by a human\n' } });
    const parked = await write();
    expect(parked._meta).toMatchObject({ 'toolgate/status': 'pending_approval' });
    const approvalId = parked._meta!['toolgate/approval_id'] as string;
    expect((await write())._meta).toMatchObject({ 'toolgate/status': 'pending_approval', 'toolgate/approval_id': approvalId });
    const decided = await fetch(`${gateway.url}/v1/approvals/${approvalId}`, { method: 'POST', headers: { authorization: `Bearer ${gateway.demoAdminKey}`, 'content-type': 'application/json' }, body: JSON.stringify({ decision: 'approve' }) });
    expect(decided.status).toBe(200);
    expect(readFileSync(join(workspace, 'approved.txt'), 'utf8')).toBe('approved by a human\n');
    expect((await write())._meta).toMatchObject({ 'toolgate/status': 'ok', 'toolgate/replayed': true });
    // Delivered: the same write again is a new call, waiting for its own approval.
    const next = await write();
    expect(next._meta).toMatchObject({ 'toolgate/status': 'pending_approval' });
    expect(next._meta!['toolgate/approval_id']).not.toBe(approvalId);
  });
});
