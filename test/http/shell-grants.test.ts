import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/http-server.ts';
import { testGateway } from '../helpers/gateway.ts';
import { validManifest } from '../helpers/manifests.ts';

/**
 * The gateway's own route: a shell call granted by `read_only_commands` reaches the exec-server
 * with `read_only: true` in the signed RPC; an unsafe one parks with no RPC at all; a human's
 * approval runs it without read_only. The exec-server is a real HTTP server on 127.0.0.1 that
 * records each RPC body and answers every command with a fixed result.
 */
let exec: TestServer;
let gw: Awaited<ReturnType<typeof testGateway>>;

const COMMAND_RESULT = { exit_code: 0, signal: null, stdout: 'README.md\n', stderr: '', timed_out: false, duration_ms: 3, output_capped: false };

beforeAll(async () => {
  exec = await startTestServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ result: COMMAND_RESULT }));
  });
  const manifest = validManifest({
    policy: { execute: 'review', rules: [{ tool: 'shell', arguments: { command: { class: 'read_only_commands' } }, action: 'grant' }] },
    execution_environment: { url: exec.url, secret: 'env:ACME_EXEC_SECRET' },
  });
  // The secret granted to the tenant, and loopback allowed for egress, as the tenant-secrets and egress checks expect.
  const env = { ACME_EXEC_SECRET: 'acme-exec-secret', TOOLGATE_TENANT_SECRETS: 'acme:ACME_EXEC_SECRET', TOOLGATE_EGRESS_ALLOW: '127.0.0.1' };
  gw = await testGateway([manifest], {
    agent: { tenant: 'acme', principal: 'agent' },
    alice: { tenant: 'acme', principal: 'alice', scopes: ['approvals:decide'] },
  }, { env });
});

afterAll(async () => {
  await exec?.close();
});

const dispatch = async (call_id: string, command: string) => {
  const response = await gw.request('/v1/dispatch', { key: 'agent', json: { thread_id: 'sh', calls: [{ call_id, name: 'shell', arguments: { command } }] } });
  expect(response.status).toBe(200);
  return (await response.json()).results[0];
};

/** The execCommand RPCs the exec-server received: command and options. */
const execCalls = () =>
  exec.requests.map((request) => JSON.parse(request.body)).filter((body) => body.method === 'execCommand').map((body) => body.params as { command: string; options: Record<string, unknown> });

describe('shell grants by class over HTTP', () => {
  it('a granted read-only command runs in a read-only sandbox; the attacks park and never reach the exec-server', async () => {
    const granted = await dispatch('ro-1', 'git status');
    expect(granted).toMatchObject({ status: 'ok', content: expect.stringContaining('README.md') });
    expect(execCalls()).toEqual([{ command: 'git status', options: { timeout_ms: 10_000, read_only: true } }]);

    for (const [index, attack] of ['git diff --no-index /etc/passwd /dev/null', 'git log --output=x', 'ls; rm -rf /', 'ls $(id)'].entries()) {
      expect(await dispatch(`attack-${index}`, attack)).toMatchObject({ status: 'pending_approval' });
    }
    expect(execCalls()).toHaveLength(1);
  });

  it('a human-approved command runs without read_only', async () => {
    const parked = await dispatch('approved-1', 'git log --output=log.txt');
    const before = execCalls().length;
    const decided = await gw.request(`/v1/approvals/${parked.error.details.approval_id}`, { key: 'alice', json: { decision: 'approve' } });
    expect(decided.status).toBe(200);
    expect(execCalls().slice(before)).toEqual([{ command: 'git log --output=log.txt', options: { timeout_ms: 10_000 } }]);
  });
});
