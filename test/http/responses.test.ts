import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ResponseInputItem, ResponseOutputItem } from 'openai/resources/responses/responses';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeEgressTransport } from '../../lib/cli/node-egress.ts';
import { startExecServer } from '../../lib/exec/server/exec-server.ts';
import { applyPatchCall, FUNCTION_CALL_OUTPUT, shellCall } from '../fixtures/responses-output.ts';
import { testGateway } from '../helpers/gateway.ts';
import { validManifest } from '../helpers/manifests.ts';

const SECRET = 'responses-exec-secret-0123456789abcdef0123';

/**
 * The Responses API through the Hono app, to a real exec-server on loopback over a temporary
 * workspace: tenant `oa` runs everything, `gov` parks writes and commands for a human, `plain`
 * has no coding tools, `an` has the anthropic profile.
 */
describe('Responses API over HTTP', () => {
  const root = mkdtempSync(join(tmpdir(), 'toolgate-responses-'));
  const workspace = join(root, 'ws');
  let exec: Awaited<ReturnType<typeof startExecServer>>;
  let gw: Awaited<ReturnType<typeof testGateway>>;

  beforeAll(async () => {
    rmSync(workspace, { recursive: true, force: true });
    const { mkdirSync } = await import('node:fs');
    mkdirSync(workspace);
    writeFileSync(join(workspace, 'notes.txt'), 'alpha\nbeta\ngamma\n');
    exec = await startExecServer({ root: workspace, secret: SECRET, tenants: ['oa', 'gov', 'an', 'ro'], port: 0 });
    const environment = { url: exec.url, secret: 'env:EXEC_SECRET' };
    const tools = [{ name: 'echo', executor: { kind: 'builtin' } }];
    const oa = validManifest({ tenant: 'oa', profile: 'openai', policy: { read: 'grant', write: 'grant', execute: 'grant' }, execution_environment: environment, tools });
    const gov = validManifest({ tenant: 'gov', profile: 'openai', policy: { read: 'grant', write: 'review', execute: 'review' }, execution_environment: environment, tools });
    const an = validManifest({ tenant: 'an', profile: 'anthropic', policy: { read: 'grant', write: 'grant', execute: 'grant' }, execution_environment: environment, tools });
    const readOnlyRule = { tool: 'shell', arguments: { command: { class: 'read_only_commands' } }, action: 'grant' } as const;
    const ro = validManifest({ tenant: 'ro', profile: 'openai', policy: { read: 'grant', write: 'review', execute: 'review', rules: [readOnlyRule] }, execution_environment: environment, tools });
    const plain = validManifest({ tenant: 'plain', profile: 'openai', policy: { read: 'grant', write: 'grant', execute: 'grant' }, tools });
    gw = await testGateway([oa, gov, an, ro, plain], {
      oa: { tenant: 'oa' },
      gov: { tenant: 'gov', principal: 'agent', scopes: ['audit:read'] },
      alice: { tenant: 'gov', principal: 'alice', scopes: ['approvals:decide'] },
      an: { tenant: 'an' },
      ro: { tenant: 'ro' },
      plain: { tenant: 'plain' },
    }, {
      env: { EXEC_SECRET: SECRET, TOOLGATE_TENANT_SECRETS: 'oa:EXEC_SECRET;gov:EXEC_SECRET;an:EXEC_SECRET;ro:EXEC_SECRET' },
      egressTransport: nodeEgressTransport(),
    });
  });

  afterAll(async () => {
    await exec?.close();
    rmSync(root, { recursive: true, force: true });
  });

  type Answer = { results: Array<{ call_id: string; status: string; content: string; replayed?: boolean; error?: { details?: { approval_id?: string } } }>; messages: ResponseInputItem[] };
  const dispatch = async (key: string, thread_id: string, output: ResponseOutputItem[], extra: Record<string, unknown> = {}): Promise<Answer> => {
    const response = await gw.request('/v1/dispatch', { key, json: { thread_id, format: 'responses', output, ...extra } });
    expect(response.status).toBe(200);
    return response.json();
  };
  const tools = async (key: string, query = '') => {
    const response = await gw.request(`/v1/tools?format=responses${query}`, { key });
    return { status: response.status, body: await response.json() };
  };
  const file = (path: string) => readFileSync(join(workspace, path), 'utf8');

  describe('tools', () => {
    it('lists function tools, with the native apply_patch and shell for the openai profile', async () => {
      const { body } = await tools('oa');
      expect(body.format).toBe('responses');
      expect(body.tools).toContainEqual({ type: 'apply_patch' });
      expect(body.tools).toContainEqual({ type: 'shell', environment: { type: 'local' } });
      // echo's schema meets strict mode (all properties required, no other properties).
      expect(body.tools).toContainEqual({ type: 'function', name: 'echo', description: expect.any(String), parameters: expect.any(Object), strict: true });
      expect(body.tools).toContainEqual(expect.objectContaining({ type: 'function', name: 'read_file', strict: false }));
      expect(body.tools.filter((t: { name?: string }) => t.name === 'apply_patch' || t.name === 'shell')).toEqual([]);
    });

    it('native=0 gives the function versions; native=1 asks for native tools on another profile', async () => {
      const functions = (await tools('oa', '&native=0')).body.tools as Array<{ type: string; name?: string }>;
      expect(functions.every((t) => t.type === 'function')).toBe(true);
      expect(functions.map((t) => t.name)).toEqual(expect.arrayContaining(['apply_patch', 'shell']));
      expect(((await tools('an')).body.tools as Array<{ type: string }>).every((t) => t.type === 'function')).toBe(true);
      expect((await tools('an', '&native=1')).body.tools).toContainEqual({ type: 'shell', environment: { type: 'local' } });
    });

    it('refuses a bad native value', async () => {
      expect(await tools('oa', '&native=yes')).toEqual({ status: 400, body: { error: { code: 'invalid_request', message: 'native must be 1 or 0 (true or false)' } } });
      expect((await tools('oa', '&native=1&native=0')).status).toBe(400);
    });
  });

  describe('function tools', () => {
    it('runs every function_call and answers function_call_output items', async () => {
      const answer = await dispatch('oa', 'fn-1', FUNCTION_CALL_OUTPUT);
      expect(answer.messages).toEqual([
        { type: 'function_call_output', call_id: 'call_echo_1', output: 'hello from the Responses API' },
        { type: 'function_call_output', call_id: 'call_read_1', output: '   1 | alpha\n   2 | beta\n   3 | gamma' },
      ]);
    });

    it('takes the whole response object too, and answers an unknown tool as its output', async () => {
      const response = { object: 'response', id: 'resp_1', output: [{ type: 'function_call', call_id: 'c1', name: 'send_email', arguments: '{}' }] };
      const answer = await (await gw.request('/v1/dispatch', { key: 'oa', json: { thread_id: 'fn-2', format: 'responses', response } })).json();
      expect(answer.results[0].status).toBe('unknown_tool');
      expect(answer.messages).toEqual([{ type: 'function_call_output', call_id: 'c1', output: expect.stringMatching(/^Unknown tool `send_email`/) }]);
    });
  });

  describe('native apply_patch and shell', () => {
    it('apply_patch_call creates, updates and deletes files through the apply_patch tool', async () => {
      const answer = await dispatch('oa', 'native-1', [
        applyPatchCall('p1', { type: 'create_file', path: 'src/hello.py', diff: '+def hello():\n+    return "hi"\n+' }),
        applyPatchCall('p2', { type: 'update_file', path: 'notes.txt', diff: '@@\n alpha\n-beta\n+BETA\n gamma\n' }),
        applyPatchCall('p3', { type: 'create_file', path: 'gone.txt', diff: '+x\n' }),
        applyPatchCall('p4', { type: 'delete_file', path: 'gone.txt' }),
      ]);
      expect(answer.messages).toEqual([
        { type: 'apply_patch_call_output', call_id: 'p1', status: 'completed', output: 'Success. Updated the following files:\nA src/hello.py\n' },
        { type: 'apply_patch_call_output', call_id: 'p2', status: 'completed', output: 'Success. Updated the following files:\nM notes.txt\n' },
        { type: 'apply_patch_call_output', call_id: 'p3', status: 'completed', output: 'Success. Updated the following files:\nA gone.txt\n' },
        { type: 'apply_patch_call_output', call_id: 'p4', status: 'completed', output: 'Success. Updated the following files:\nD gone.txt\n' },
      ]);
      expect(file('src/hello.py')).toBe('def hello():\n    return "hi"\n');
      expect(file('notes.txt')).toBe('alpha\nBETA\ngamma\n');
      expect(existsSync(join(workspace, 'gone.txt'))).toBe(false);
    });

    it('a patch that does not apply answers failed with the message the model can act on', async () => {
      const answer = await dispatch('oa', 'native-2', [applyPatchCall('p1', { type: 'update_file', path: 'notes.txt', diff: '@@\n-not in the file\n+x\n' })]);
      expect(answer.messages).toEqual([{ type: 'apply_patch_call_output', call_id: 'p1', status: 'failed', output: expect.stringContaining('Failed to find expected lines in notes.txt') }]);
    });

    it('shell_call runs each command and answers one shell_call_output, honouring timeout_ms and max_output_length', async () => {
      const answer = await dispatch('oa', 'native-3', [
        shellCall('s1', ['cat notes.txt', 'echo oops >&2; exit 3']),
        shellCall('s2', ['sleep 5'], { timeout_ms: 300 }),
        shellCall('s3', ['seq 1 5000'], { max_output_length: 200 }),
      ]);
      const [s1, s2, s3] = answer.messages as ResponseInputItem.ShellCallOutput[];
      expect(s1).toEqual({
        type: 'shell_call_output',
        call_id: 's1',
        max_output_length: null,
        output: [
          { stdout: 'alpha\nBETA\ngamma', stderr: '', outcome: { type: 'exit', exit_code: 0 } },
          { stdout: '', stderr: 'oops', outcome: { type: 'exit', exit_code: 3 } },
        ],
      });
      expect(s2.output).toEqual([{ stdout: '', stderr: '', outcome: { type: 'timeout' } }]);
      expect(s3.max_output_length).toBe(200);
      expect(s3.output[0].stdout.length).toBeLessThanOrEqual(200);
      expect(s3.output[0].stdout).toMatch(/^1\n2\n3\n[\s\S]*max_output_length is 200[\s\S]*\n5000$/);
      expect(answer.results.map((r) => r.call_id)).toEqual(['s1:0', 's1:1', 's2:0', 's3:0']);
    });

    it("a shell_call's commands run in order even in a parallel batch", async () => {
      const commands = Array.from({ length: 6 }, (_, i) => `echo ${i} >> order.txt`);
      await dispatch('oa', 'native-4', [shellCall('s1', commands), FUNCTION_CALL_OUTPUT[1]], { parallel: true });
      expect(file('order.txt')).toBe('0\n1\n2\n3\n4\n5\n');
    });

    it('a retried item replays: the command runs once, the answer is the same', async () => {
      const output = [shellCall('s1', ['echo run >> runs.txt; cat runs.txt'])];
      const first = await dispatch('oa', 'native-5', output);
      const again = await dispatch('oa', 'native-5', output);
      expect(again.results[0]).toMatchObject({ call_id: 's1:0', replayed: true });
      expect(again.messages).toEqual(first.messages);
      expect(file('runs.txt')).toBe('run\n');
    });

    it('a path outside the workspace is refused as the function tool refuses it', async () => {
      const outside = join(root, 'escaped.txt');
      const answer = await dispatch('oa', 'native-6', [
        applyPatchCall('p1', { type: 'create_file', path: '../escaped.txt', diff: '+pwned\n' }),
        applyPatchCall('p2', { type: 'create_file', path: outside, diff: '+pwned\n' }),
        applyPatchCall('p3', { type: 'update_file', path: '../../etc/passwd', diff: '@@\n-root\n+toor\n' }),
      ]);
      const viaFunction = await (await gw.request('/v1/dispatch', { key: 'oa', json: { thread_id: 'native-6f', calls: [{ name: 'apply_patch', arguments: { patch: '*** Begin Patch\n*** Add File: ../escaped.txt\n+pwned\n*** End Patch' } }] } })).json();
      const [p1, p2, p3] = answer.messages as ResponseInputItem.ApplyPatchCallOutput[];
      expect(p1).toEqual({ type: 'apply_patch_call_output', call_id: 'p1', status: 'failed', output: viaFunction.results[0].content });
      expect([p2.status, p3.status]).toEqual(['failed', 'failed']);
      expect(p3.output).toContain('outside the environment root');
      expect(existsSync(outside)).toBe(false);
    });

    it('on a tenant without those tools a native call is unknown_tool, answered in its own item', async () => {
      const answer = await dispatch('plain', 'native-7', [applyPatchCall('p1', { type: 'delete_file', path: 'a.txt' }), shellCall('s1', ['ls', 'pwd'])]);
      expect(answer.results.map((r) => [r.call_id, r.status])).toEqual([['p1', 'unknown_tool'], ['s1:0', 'unknown_tool']]);
      const [patch, shell] = answer.messages as [ResponseInputItem.ApplyPatchCallOutput, ResponseInputItem.ShellCallOutput];
      expect(patch).toMatchObject({ status: 'failed', output: expect.stringMatching(/^Unknown tool `apply_patch`/) });
      expect(shell.output).toEqual([{ stdout: '', stderr: expect.stringMatching(/^Unknown tool `shell`[\s\S]*the 1 command\(s\) after this one in the shell_call were not run/), outcome: { type: 'exit', exit_code: 126 } }]);
    });

    it('refuses malformed or oversized items with 400, before anything runs', async () => {
      const bad = async (output: unknown) => {
        const response = await gw.request('/v1/dispatch', { key: 'oa', json: { thread_id: 'native-8', format: 'responses', output } });
        return { status: response.status, message: (await response.json()).error?.message };
      };
      expect(await bad([shellCall('s1', Array(1000).fill('touch flood.txt'))])).toEqual({ status: 400, message: 'output[0].action.commands must hold 1-32 commands (got 1000)' });
      const many = Array.from({ length: 5 }, (_, i) => shellCall(`s${i}`, Array(30).fill('touch flood.txt')));
      expect(await bad(many)).toEqual({ status: 400, message: 'at most 128 calls per request (got 150)' });
      expect(await bad([applyPatchCall('p1', { type: 'create_file', path: 'a.txt', diff: '+ok\n*** Delete File: notes.txt' })])).toMatchObject({ status: 400 });
      expect(await bad([{ type: 'apply_patch_call', call_id: 'p1' }])).toEqual({ status: 400, message: 'output[0].operation must be an object' });
      expect(await bad({ type: 'shell_call' })).toEqual({ status: 400, message: 'output (or response.output) must be an array' });
      expect(existsSync(join(workspace, 'flood.txt'))).toBe(false);
      expect(file('notes.txt')).toBe('alpha\nBETA\ngamma\n');
    });
  });

  describe('policy', () => {
    it("each command of a shell_call meets the tenant's shell rules; the first one parked stops the rest", async () => {
      const answer = await dispatch('ro', 'policy-1', [shellCall('s1', ['ls notes.txt', 'touch made-by-model.txt', 'ls'])]);
      expect(answer.results.map((r) => [r.call_id, r.status])).toEqual([['s1:0', 'ok'], ['s1:1', 'pending_approval']]);
      const [shell] = answer.messages as ResponseInputItem.ShellCallOutput[];
      expect(shell.output).toEqual([
        { stdout: 'notes.txt', stderr: '', outcome: { type: 'exit', exit_code: 0 } },
        { stdout: '', stderr: expect.stringMatching(/needs a human's approval[\s\S]*the 1 command\(s\) after this one in the shell_call were not run/), outcome: { type: 'exit', exit_code: 126 } },
      ]);
      expect(existsSync(join(workspace, 'made-by-model.txt'))).toBe(false);
    });
  });

  describe('approvals', () => {
    const approve = async (approval_id: string | undefined) => {
      const decided = await gw.request(`/v1/approvals/${approval_id}`, { key: 'alice', json: { decision: 'approve' } });
      expect(decided.status).toBe(200);
      return decided.json();
    };

    it('a native apply_patch_call and shell_call park, are approved, and then answer their output items', async () => {
      const output = [
        applyPatchCall('p1', { type: 'create_file', path: 'approved.txt', diff: '+approved\n' }),
        shellCall('s1', ['cat approved.txt', 'echo second >> approved.txt']),
      ];
      const parked = await dispatch('gov', 'approve-1', output);
      expect(parked.results.map((r) => [r.call_id, r.status])).toEqual([['p1', 'pending_approval'], ['s1:0', 'pending_approval']]);
      const [patch, shell] = parked.messages as [ResponseInputItem.ApplyPatchCallOutput, ResponseInputItem.ShellCallOutput];
      expect(patch).toEqual({ type: 'apply_patch_call_output', call_id: 'p1', status: 'failed', output: expect.stringContaining("needs a human's approval") });
      expect(shell.output).toEqual([{ stdout: '', stderr: expect.stringContaining("needs a human's approval"), outcome: { type: 'exit', exit_code: 126 } }]);
      expect(existsSync(join(workspace, 'approved.txt'))).toBe(false);

      // The approver sees what will run: the patch text and the command (parked in the same
      // millisecond, the two may be listed in either order).
      const pending = (await (await gw.request('/v1/approvals?state=pending', { key: 'alice' })).json()).approvals;
      expect(pending.map((a: { tool: string; arguments: unknown }) => [a.tool, a.arguments]).sort((a: unknown[], b: unknown[]) => String(a[0]).localeCompare(String(b[0])))).toEqual([
        ['apply_patch', { patch: '*** Begin Patch\n*** Add File: approved.txt\n+approved\n*** End Patch' }],
        ['shell', { command: 'cat approved.txt' }],
      ]);
      await approve(parked.results[0].error?.details?.approval_id);
      await approve(parked.results[1].error?.details?.approval_id);
      expect(file('approved.txt')).toBe('approved\n');

      // Re-sending the same output replays what ran and dispatches the next command, which parks in turn.
      const next = await dispatch('gov', 'approve-1', output);
      expect(next.results.map((r) => [r.call_id, r.status, r.replayed ?? false])).toEqual([['p1', 'ok', true], ['s1:0', 'ok', true], ['s1:1', 'pending_approval', false]]);
      await approve(next.results[2].error?.details?.approval_id);

      const done = await dispatch('gov', 'approve-1', output);
      expect(done.messages).toEqual([
        { type: 'apply_patch_call_output', call_id: 'p1', status: 'completed', output: 'Success. Updated the following files:\nA approved.txt\n' },
        {
          type: 'shell_call_output',
          call_id: 's1',
          max_output_length: null,
          output: [
            { stdout: 'approved', stderr: '', outcome: { type: 'exit', exit_code: 0 } },
            { stdout: '', stderr: '', outcome: { type: 'exit', exit_code: 0 } },
          ],
        },
      ]);
      expect(file('approved.txt')).toBe('approved\nsecond\n');

      // The calls are stored under their ids, and audited like any call.
      const polled = await (await gw.request('/v1/calls/s1:1?thread_id=approve-1', { key: 'gov' })).json();
      expect(polled).toMatchObject({ call_id: 's1:1', status: 'ok' });
      const audit = await (await gw.request('/v1/audit?thread_id=approve-1', { key: 'gov' })).json();
      expect(new Set(audit.envelopes.map((e: { call_id: string }) => e.call_id))).toEqual(new Set(['p1', 's1:0', 's1:1']));
    });
  });
});
