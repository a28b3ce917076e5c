import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ResponseInputItem } from 'openai/resources/responses/responses';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeEgressTransport } from '../../lib/cli/node-egress.ts';
import { startExecServer } from '../../lib/exec/server/exec-server.ts';
import { shellCall } from '../fixtures/responses-output.ts';
import { testGateway } from '../helpers/gateway.ts';
import { validManifest } from '../helpers/manifests.ts';

const SECRET = 'boundaries3-shell-call-secret-0123456789abcdef';

/**
 * Boundaries round 3, attacked: a shell_call's next command runs only after the one before it
 * exited, which the batch read from the command's result text, after the tool's output limits
 * had cut it. A tenant's own limits for the built-in shell (here 120 characters, or `tail`
 * mode) cut the timeout note (or the header), and a command that timed out read as exit 0: the
 * next command ran. The batch now reads the command's whole output, before truncation.
 */
describe('attack: a shell_call goes on after a timeout whose note the output limits cut', () => {
  const root = mkdtempSync(join(tmpdir(), 'toolgate-b3-shell-call-'));
  const workspace = join(root, 'ws');
  let exec: Awaited<ReturnType<typeof startExecServer>>;
  let gw: Awaited<ReturnType<typeof testGateway>>;

  beforeAll(async () => {
    mkdirSync(workspace);
    exec = await startExecServer({ root: workspace, secret: SECRET, tenants: ['small', 'tail'], port: 0 });
    const environment = { url: exec.url, secret: 'env:EXEC_SECRET' };
    const policy = { read: 'grant', write: 'grant', execute: 'grant' } as const;
    const small = validManifest({ tenant: 'small', profile: 'openai', policy, execution_environment: environment, tools: [{ name: 'shell', executor: { kind: 'builtin' }, output: { max_chars: 120 } }] });
    const tail = validManifest({ tenant: 'tail', profile: 'openai', policy, execution_environment: environment, tools: [{ name: 'shell', executor: { kind: 'builtin' }, output: { max_chars: 2_000, mode: 'tail' } }] });
    gw = await testGateway([small, tail], { small: { tenant: 'small' }, tail: { tenant: 'tail' } }, {
      env: { EXEC_SECRET: SECRET, TOOLGATE_TENANT_SECRETS: 'small:EXEC_SECRET;tail:EXEC_SECRET' },
      egressTransport: nodeEgressTransport(),
    });
  });
  afterAll(async () => {
    await exec?.close();
    rmSync(root, { recursive: true, force: true });
  });

  /** One shell_call through /v1/dispatch in the Responses format: the results' ids and the item's entries. */
  async function dispatchShellCall(key: string, thread: string, commands: string[]) {
    const output = [shellCall('s1', commands, { timeout_ms: 300 })];
    const response = await gw.request('/v1/dispatch', { key, json: { thread_id: thread, format: 'responses', output } });
    const answer = (await response.json()) as { results: Array<{ call_id: string; content: string }>; messages: ResponseInputItem[] };
    return { results: answer.results, entries: (answer.messages[0] as ResponseInputItem.ShellCallOutput).output };
  }

  for (const [key, first] of [['small', 'sleep 5'], ['tail', 'head -c 50000 /dev/zero | tr "\\0" x; sleep 5']] as const) {
    it(`tenant "${key}": the first command timed out, the second never runs, and its entry says timeout`, async () => {
      const marker = `after-${key}.txt`;
      const { results, entries } = await dispatchShellCall(key, `t-${key}`, [first, `echo AFTER > ${marker}`]);
      expect(results.map((result) => result.call_id)).toEqual(['s1:0']);
      expect(entries).toHaveLength(1);
      expect(entries[0].stderr).toMatch(/the 1 command\(s\) after this one in the shell_call were not run/);
      expect(entries[0].outcome).toEqual({ type: 'timeout' });
      // The entry shows the model no more than the tenant's limits let through.
      expect(results[0].content).toContain(entries[0].stdout);
      if (key === 'small') expect(`${entries[0].stdout}${entries[0].stderr}`).not.toContain('timed out');
      expect(existsSync(join(workspace, marker))).toBe(false);
    }, 30_000);
  }

  it('the same shell_call sent again: the timed-out command is replayed, still as a timeout, and the second still never runs', async () => {
    const commands = ['sleep 5', 'echo AFTER > after-retry.txt'];
    await dispatchShellCall('small', 't-retry', commands);
    const { results, entries } = await dispatchShellCall('small', 't-retry', commands);
    expect(results.map((result) => result.call_id)).toEqual(['s1:0']);
    expect(entries.map((entry) => entry.outcome)).toEqual([{ type: 'timeout' }]);
    expect(existsSync(join(workspace, 'after-retry.txt'))).toBe(false);
  }, 30_000);

  it('tenant "tail": a command whose exit code the limits cut from the header still reports it', async () => {
    const { results, entries } = await dispatchShellCall('tail', 't-exit', ['head -c 50000 /dev/zero | tr "\\0" x; exit 3', 'echo next']);
    expect(entries.map((entry) => entry.outcome)).toEqual([
      { type: 'exit', exit_code: 3 },
      { type: 'exit', exit_code: 0 },
    ]);
    // The header is cut: the entry is the text the model reads, no more.
    expect(entries[0]).toMatchObject({ stdout: results[0].content, stderr: '' });
    expect(results[0].content).not.toContain('Exit code: 3');
  }, 30_000);
});
