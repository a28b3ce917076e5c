import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ResponseInputItem } from 'openai/resources/responses/responses';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeEgressTransport } from '../../lib/cli/node-egress.ts';
import { startExecServer } from '../../lib/exec/server/exec-server.ts';
import type { PolicyConfig } from '../../lib/governance/policy.ts';
import type { PolicyRule } from '../../lib/governance/rules.ts';
import { shellCall } from '../fixtures/responses-output.ts';
import { testGateway } from '../helpers/gateway.ts';
import { validManifest } from '../helpers/manifests.ts';

const SECRET = 'shell-call-stops-secret-0123456789abcdef012';

/**
 * Issue 22, finding 7: a Responses shell_call whose first command timed out still ran the next
 * one (outcomes ["timeout", "exit"], and `echo AFTER` ran). The first command that does not exit
 * (its own timeout, the gateway's timeout, an error, parked, refused, its environment down)
 * stops the rest, in sequential and parallel batches; a non-zero exit does not (as in OpenAI's
 * reference executor, which stops only at a timeout). Real exec-server, real sandbox.
 */
describe('attack: a shell_call goes on after a command that did not end ok', () => {
  const root = mkdtempSync(join(tmpdir(), 'toolgate-shell-call-stops-'));
  const workspace = join(root, 'ws');
  let exec: Awaited<ReturnType<typeof startExecServer>>;
  let gw: Awaited<ReturnType<typeof testGateway>>;

  beforeAll(async () => {
    mkdirSync(workspace);
    exec = await startExecServer({ root: workspace, secret: SECRET, tenants: ['run', 'slow'], port: 0 });
    const environment = { url: exec.url, secret: 'env:EXEC_SECRET' };
    const rules: PolicyRule[] = [
      { tool: 'shell', arguments: { command: 'rm .*' }, action: 'deny' },
      { tool: 'shell', arguments: { command: 'touch .*' }, action: 'review' },
    ];
    const policy: PolicyConfig = { read: 'grant', write: 'grant', execute: 'grant', rules };
    const run = validManifest({ tenant: 'run', profile: 'openai', policy, execution_environment: environment, tools: [] });
    // The gateway gives up on a command after 1 s, whatever the command's own timeout_ms.
    const slow = validManifest({ tenant: 'slow', profile: 'openai', policy, execution_environment: environment, tools: [{ name: 'shell', executor: { kind: 'builtin' }, timeout_ms: 1_000 }] });
    // Nothing listens there: the environment is unavailable.
    const down = validManifest({ tenant: 'down', profile: 'openai', policy, execution_environment: { url: 'http://127.0.0.1:9', secret: 'env:EXEC_SECRET' }, tools: [] });
    gw = await testGateway([run, slow, down], { run: { tenant: 'run' }, slow: { tenant: 'slow' }, down: { tenant: 'down' } }, {
      env: { EXEC_SECRET: SECRET, TOOLGATE_TENANT_SECRETS: 'run:EXEC_SECRET;slow:EXEC_SECRET;down:EXEC_SECRET' },
      egressTransport: nodeEgressTransport(),
    });
  });

  afterAll(async () => {
    await exec?.close();
    rmSync(root, { recursive: true, force: true });
  });

  type Answer = { results: Array<{ call_id: string; status: string }>; messages: ResponseInputItem[] };
  const dispatch = async (key: string, thread_id: string, commands: string[], parallel: boolean, timeout_ms?: number): Promise<Answer> => {
    const output = [shellCall('s1', commands, { timeout_ms })];
    const response = await gw.request('/v1/dispatch', { key, json: { thread_id, format: 'responses', parallel, output } });
    expect(response.status).toBe(200);
    return response.json();
  };
  const outcomes = (answer: Answer) => (answer.messages[0] as ResponseInputItem.ShellCallOutput).output.map((entry) => entry.outcome);
  const notRunNote = /the 1 command\(s\) after this one in the shell_call were not run/;

  const cases = [
    { outcome: 'its own timeout', key: 'run', first: 'sleep 5', timeout_ms: 300, status: 'ok', written: { type: 'timeout' } },
    { outcome: "the gateway's timeout", key: 'slow', first: 'sleep 5', status: 'timeout', written: { type: 'timeout' } },
    { outcome: 'an error', key: 'run', first: 'echo a\u0000b', status: 'error', written: { type: 'exit', exit_code: 126 } },
    { outcome: 'parked', key: 'run', first: 'touch parked.txt', status: 'pending_approval', written: { type: 'exit', exit_code: 126 } },
    { outcome: 'refused', key: 'run', first: 'rm -rf .', status: 'denied', written: { type: 'exit', exit_code: 126 } },
    { outcome: 'its environment down', key: 'down', first: 'true', status: 'unavailable', written: { type: 'exit', exit_code: 126 } },
  ] as const;

  for (const parallel of [false, true]) {
    const mode = parallel ? 'parallel' : 'sequential';
    describe(`in a ${mode} batch`, () => {
      for (const [index, { outcome, key, first, timeout_ms, status, written }] of cases.map((c, i) => [i, { timeout_ms: undefined, ...c }] as const)) {
        it(`a command that ends with ${outcome} stops the rest`, async () => {
          const marker = `after-${mode}-${index}.txt`;
          const answer = await dispatch(key, `stops-${mode}-${index}`, [first, `echo AFTER > ${marker}`], parallel, timeout_ms);
          expect(answer.results.map((result) => [result.call_id, result.status])).toEqual([['s1:0', status]]);
          expect(outcomes(answer)).toEqual([written]);
          expect((answer.messages[0] as ResponseInputItem.ShellCallOutput).output[0].stderr).toMatch(notRunNote);
          expect(existsSync(join(workspace, marker))).toBe(false);
        });
      }

      it('a non-zero exit does not stop the rest (its outcome is an exit, as the next command can read)', async () => {
        const marker = `after-${mode}-exit.txt`;
        const answer = await dispatch('run', `exit-${mode}`, ['exit 3', `echo AFTER > ${marker}`], parallel);
        expect(outcomes(answer)).toEqual([{ type: 'exit', exit_code: 3 }, { type: 'exit', exit_code: 0 }]);
        expect(existsSync(join(workspace, marker))).toBe(true);
      });
    });
  }
});
