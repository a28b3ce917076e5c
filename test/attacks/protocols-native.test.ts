import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeEgressTransport } from '../../lib/cli/node-egress.ts';
import type { ToolResult } from '../../lib/dispatch/call.ts';
import { MAX_LISTED_ENTRIES } from '../../lib/exec/limits.ts';
import { startExecServer } from '../../lib/exec/server/exec-server.ts';
import { testGateway } from '../helpers/gateway.ts';
import { validManifest } from '../helpers/manifests.ts';

const SECRET = 'protocols-attack-exec-secret-0123456789abcdef';

/**
 * Attacks on the native shapes of issue 11 (Responses apply_patch_call / shell_call, Anthropic's
 * text editor and bash) through the Hono app, against a real exec-server over a temporary
 * workspace. `oa`/`an` run everything; `gov`/`angov` park writes and commands for a human.
 */
describe('attacks: native tool shapes', () => {
  const root = mkdtempSync(join(tmpdir(), 'toolgate-attack-native-'));
  const workspace = join(root, 'ws');
  const outside = join(root, 'outside');
  let exec: Awaited<ReturnType<typeof startExecServer>>;
  let gw: Awaited<ReturnType<typeof testGateway>>;

  beforeAll(async () => {
    mkdirSync(workspace);
    mkdirSync(outside);
    writeFileSync(join(outside, 'secret.txt'), 'outside secret\n');
    writeFileSync(join(workspace, 'notes.txt'), 'one\ntwo\nthree\n');
    writeFileSync(join(workspace, 'victim.txt'), 'keep me\n');
    symlinkSync(outside, join(workspace, 'link'));
    symlinkSync(join(outside, 'secret.txt'), join(workspace, 'secret-link.txt'));
    exec = await startExecServer({ root: workspace, secret: SECRET, tenants: ['oa', 'an', 'gov', 'angov'], port: 0 });
    const execution_environment = { url: exec.url, secret: 'env:EXEC_SECRET' };
    const all = { read: 'grant', write: 'grant', execute: 'grant' } as const;
    const review = { read: 'grant', write: 'review', execute: 'review' } as const;
    gw = await testGateway(
      [
        validManifest({ tenant: 'oa', profile: 'openai', policy: all, execution_environment, tools: [{ name: 'echo', executor: { kind: 'builtin' } }] }),
        validManifest({ tenant: 'an', profile: 'anthropic', policy: all, execution_environment, tools: [] }),
        validManifest({ tenant: 'gov', profile: 'openai', policy: review, execution_environment, tools: [] }),
        validManifest({ tenant: 'angov', profile: 'anthropic', policy: review, execution_environment, tools: [] }),
      ],
      { oa: { tenant: 'oa' }, an: { tenant: 'an' }, gov: { tenant: 'gov' }, angov: { tenant: 'angov' } },
      { env: { EXEC_SECRET: SECRET, TOOLGATE_TENANT_SECRETS: 'oa:EXEC_SECRET;an:EXEC_SECRET;gov:EXEC_SECRET;angov:EXEC_SECRET' }, egressTransport: nodeEgressTransport() },
    );
  });
  afterAll(async () => {
    await exec?.close();
    rmSync(root, { recursive: true, force: true });
  });

  type Answer = { results: ToolResult[]; messages: Array<Record<string, unknown>> };
  let thread = 0;
  const post = (key: string, body: Record<string, unknown>) => gw.request('/v1/dispatch', { key, json: { thread_id: `t${++thread}`, ...body } });
  const responses = async (key: string, output: unknown[], extra: Record<string, unknown> = {}): Promise<Answer> => {
    const response = await post(key, { format: 'responses', output, ...extra });
    expect(response.status).toBe(200);
    return response.json();
  };
  const claude = async (key: string, name: string, input: unknown): Promise<{ result: ToolResult; block: { content: unknown; is_error: boolean } }> => {
    const response = await post(key, { format: 'anthropic', content: [{ type: 'tool_use', id: `toolu_${thread}`, name, input }] });
    expect(response.status).toBe(200);
    const answer = (await response.json()) as Answer;
    return { result: answer.results[0]!, block: (answer.messages[0]!.content as Array<{ content: unknown; is_error: boolean }>)[0]! };
  };
  const editor = (key: string, input: Record<string, unknown>) => claude(key, 'str_replace_based_edit_tool', input);

  describe('Responses apply_patch_call', () => {
    it('an update_file diff cannot smuggle a second operation in an indented marker line', async () => {
      writeFileSync(join(workspace, 'victim.txt'), 'keep me\n');
      writeFileSync(join(workspace, 'target.txt'), 'a\n');
      // U+0085 (NEL) is whitespace to the patch parser (as to Codex) but not to String#trim.
      const markers = [' *** Delete File: victim.txt', '\t*** Delete File: victim.txt', ' *** Add File: smuggled.txt', '\u0085*** Delete File: victim.txt', '\u0085*** Add File: smuggled.txt\n+x'];
      const operations = markers.flatMap((marker) => [
        { type: 'update_file', path: 'target.txt', diff: `@@\n-a\n+b\n${marker}\n` },
        { type: 'create_file', path: `new${thread}.txt`, diff: `+b\n${marker}\n` },
      ]);
      for (const operation of operations) {
        writeFileSync(join(workspace, 'target.txt'), 'a\n');
        const response = await post('oa', { format: 'responses', output: [{ type: 'apply_patch_call', call_id: `p${thread}`, status: 'completed', operation }] });
        // One operation per item: the diff is refused, or at worst the marker stays text in target.txt.
        if (response.status === 200) {
          const answer = (await response.json()) as Answer;
          expect(existsSync(join(workspace, "victim.txt")), JSON.stringify(operation)).toBe(true);
          expect(answer.results.map((r) => r.status), JSON.stringify(operation)).not.toContain("ok");
        } else {
          expect(response.status).toBe(400);
        }
        expect(readFileSync(join(workspace, 'victim.txt'), 'utf8')).toBe('keep me\n');
        expect(existsSync(join(workspace, 'smuggled.txt'))).toBe(false);
      }
    });

    it('paths out of the workspace (.., absolute, through a symlink) are refused in every operation', async () => {
      const ops = [
        { type: 'create_file', path: '../outside/new.txt', diff: '+x\n' },
        { type: 'create_file', path: `${outside}/abs.txt`, diff: '+x\n' },
        { type: 'create_file', path: 'link/via-link.txt', diff: '+x\n' },
        { type: 'update_file', path: 'secret-link.txt', diff: '@@\n-outside secret\n+owned\n' },
        { type: 'update_file', path: 'link/secret.txt', diff: '@@\n-outside secret\n+owned\n' },
        { type: 'delete_file', path: 'link/secret.txt' },
        { type: 'delete_file', path: '../outside/secret.txt' },
      ];
      const answer = await responses('oa', ops.map((operation, i) => ({ type: 'apply_patch_call', call_id: `out${i}`, status: 'completed', operation })));
      expect(answer.results.map((r) => r.status)).toEqual(ops.map(() => 'error'));
      expect(answer.messages.map((m) => m.status)).toEqual(ops.map(() => 'failed'));
      expect(readFileSync(join(outside, 'secret.txt'), 'utf8')).toBe('outside secret\n');
      expect(existsSync(join(outside, 'new.txt')) || existsSync(join(outside, 'abs.txt')) || existsSync(join(outside, 'via-link.txt'))).toBe(false);
    });
  });

  describe('Responses shell_call', () => {
    it('a parked command stops its siblings, also in a parallel batch and across two items', async () => {
      const answer = await responses('gov', [
        { type: 'shell_call', call_id: 'sA', status: 'completed', action: { commands: ['touch parked-a.txt', 'touch after-a.txt'] } },
        { type: 'shell_call', call_id: 'sB', status: 'completed', action: { commands: ['touch parked-b.txt', 'touch after-b.txt'] } },
      ], { parallel: true });
      expect(answer.results.map((r) => [r.call_id, r.status])).toEqual([['sA:0', 'pending_approval'], ['sB:0', 'pending_approval']]);
      for (const name of ['parked-a.txt', 'after-a.txt', 'parked-b.txt', 'after-b.txt']) expect(existsSync(join(workspace, name))).toBe(false);
    });

    it('derived ids cannot collide with a function_call id in the same request', async () => {
      const response = await post('oa', {
        format: 'responses',
        output: [
          { type: 'function_call', call_id: 'x:0', name: 'echo', arguments: '{"text":"hi"}' },
          { type: 'shell_call', call_id: 'x', status: 'completed', action: { commands: ['echo one'] } },
        ],
      });
      expect(response.status).toBe(400);
      expect((await response.json()).error.message).toMatch(/appears twice/);
    });

    it('a later function_call that reuses a command id x:0 with other arguments is a conflict, not a replay', async () => {
      const thread_id = 'collide';
      const first = await gw.request('/v1/dispatch', { key: 'oa', json: { thread_id, format: 'responses', output: [{ type: 'shell_call', call_id: 'x', status: 'completed', action: { commands: ['echo first'] } }] } });
      expect((await first.json()).results[0].status).toBe('ok');
      const second = await gw.request('/v1/dispatch', { key: 'oa', json: { thread_id, calls: [{ call_id: 'x:0', name: 'shell', arguments: { command: 'echo other' } }] } });
      expect((await second.json()).results[0].status).toBe('conflict');
    });

    it('call id length, command count and bad limits are 400s, never a 500', async () => {
      const shell = (call_id: string, action: unknown) => post('oa', { format: 'responses', output: [{ type: 'shell_call', call_id, status: 'completed', action }] });
      expect((await shell('a'.repeat(198), { commands: ['true'] })).status).toBe(400);
      expect((await shell('a'.repeat(197), { commands: Array.from({ length: 32 }, () => 'true') })).status).toBe(200);
      expect((await shell('b', { commands: Array.from({ length: 33 }, () => 'true') })).status).toBe(400);
      expect((await shell('c', { commands: [] })).status).toBe(400);
      expect((await shell('d', { commands: [{ toString: 1 }] })).status).toBe(400);
      expect((await shell('e', { commands: ['true'], max_output_length: -1 })).status).toBe(400);
      expect((await shell('f', { commands: ['true'], max_output_length: 1.5 })).status).toBe(400);
      expect((await shell('g', { commands: ['true'], timeout_ms: '1000' })).status).toBe(400);
      expect((await shell('h', { commands: ['true'], timeout_ms: 1e300 })).status).toBe(200);
      expect((await shell('i', null)).status).toBe(400);
      // An astral call id: 197 UTF-16 units leaves room for ":31".
      expect((await shell('😀'.repeat(98) + 'a', { commands: Array.from({ length: 32 }, () => 'true') })).status).toBe(200);
    });

    it('a negative, fractional or enormous timeout_ms is the shell tool\'s invalid_arguments, and nothing runs', async () => {
      for (const timeout_ms of [-1, 0.5, 1e300]) {
        const answer = await responses('oa', [{ type: 'shell_call', call_id: `to${thread}`, status: 'completed', action: { commands: ['touch timeout-ran.txt'], timeout_ms } }]);
        expect(answer.results[0]!.status).toBe('invalid_arguments');
        expect(existsSync(join(workspace, 'timeout-ran.txt'))).toBe(false);
      }
    });
  });

  describe('Anthropic text editor and bash', () => {
    it('bash and every text-editor write park for a tenant that reviews writes and commands', async () => {
      expect((await claude('angov', 'bash', { command: 'touch bash-ran.txt' })).result.status).toBe('pending_approval');
      expect((await editor('angov', { command: 'create', path: 'created.txt', file_text: 'x' })).result.status).toBe('pending_approval');
      expect((await editor('angov', { command: 'insert', path: 'notes.txt', insert_line: 0, insert_text: 'x' })).result.status).toBe('pending_approval');
      expect((await editor('angov', { command: 'str_replace', path: 'notes.txt', old_str: 'one', new_str: 'uno' })).result.status).toBe('pending_approval');
      // restart runs nothing, whatever command rides along.
      expect((await claude('angov', 'bash', { restart: true, command: 'touch restart-ran.txt' })).result.status).toBe('ok');
      for (const name of ['bash-ran.txt', 'created.txt', 'restart-ran.txt']) expect(existsSync(join(workspace, name))).toBe(false);
      expect(readFileSync(join(workspace, 'notes.txt'), 'utf8')).toBe('one\ntwo\nthree\n');
    });

    it('view does not list or read through a symlink out of the workspace, nor out by ..', async () => {
      for (const path of ['link', 'link/secret.txt', 'secret-link.txt', '..', '../outside', '../outside/secret.txt', outside]) {
        const { result } = await editor('an', { command: 'view', path });
        expect(result.content).not.toContain('outside secret');
        expect(result.content).not.toMatch(/secret\.txt\n|^secret\.txt$/m);
        expect(result.status).not.toBe('ok');
      }
      // The workspace's own listing shows the links as entries, not what is behind them.
      const listing = (await editor('an', { command: 'view', path: '.' })).result.content;
      expect(listing).not.toContain('link/secret.txt');
    });

    it('a view of a huge folder tree stops at the listing cap, still showing the upper level\'s entries', async () => {
      const big = join(workspace, 'big');
      mkdirSync(join(big, 'aaa'), { recursive: true });
      for (let i = 0; i < MAX_LISTED_ENTRIES + 500; i++) writeFileSync(join(big, 'aaa', `f${i}`), '');
      writeFileSync(join(big, 'zzz.txt'), 'last\n');
      const { result } = await editor('an', { command: 'view', path: 'big' });
      expect(result.status).toBe('ok');
      expect(result.content).toMatch(/^big\/zzz\.txt$/m);
      expect(result.content).toContain(`[Listing stopped after ${MAX_LISTED_ENTRIES} entries.`);
      rmSync(big, { recursive: true, force: true });
    });

    it('create, insert and str_replace do not write through a symlink or out by ..', async () => {
      const writes = [
        { command: 'create', path: 'link/created.txt', file_text: 'x' },
        { command: 'create', path: '../outside/created.txt', file_text: 'x' },
        { command: 'create', path: 'secret-link.txt', file_text: 'owned' },
        { command: 'insert', path: 'secret-link.txt', insert_line: 0, insert_text: 'owned' },
        { command: 'insert', path: 'link/secret.txt', insert_line: 1, insert_text: 'owned' },
        { command: 'str_replace', path: 'secret-link.txt', old_str: 'outside', new_str: 'owned' },
      ];
      for (const input of writes) expect((await editor('an', input)).result.status).not.toBe('ok');
      expect(readFileSync(join(outside, 'secret.txt'), 'utf8')).toBe('outside secret\n');
      expect(existsSync(join(outside, 'created.txt'))).toBe(false);
    });

    it('odd insert_line and view_range values are invalid_arguments, never a 500 or a write', async () => {
      writeFileSync(join(workspace, 'lines.txt'), 'a\nb\n');
      for (const insert_line of [-1, 1.5, '1', 1e300, Number.MAX_SAFE_INTEGER, null, [1], { n: 1 }, 3]) {
        const { result, block } = await editor('an', { command: 'insert', path: 'lines.txt', insert_line, insert_text: 'x' });
        expect(result.status, JSON.stringify(insert_line)).not.toBe('ok');
        expect(block.is_error).toBe(true);
      }
      expect(readFileSync(join(workspace, 'lines.txt'), 'utf8')).toBe('a\nb\n');
      for (const view_range of [[2, 1], [0, 1], [1, -2], [-1, -1], [1], [1, 2, 3], '1-2', [1.5, 2], [1, 1e300]]) {
        const { result } = await editor('an', { command: 'view', path: 'lines.txt', view_range });
        expect(result.status, JSON.stringify(view_range)).toBe('invalid_arguments');
      }
      // A huge but safe range just reads what is there.
      expect((await editor('an', { command: 'view', path: 'lines.txt', view_range: [1, Number.MAX_SAFE_INTEGER] })).result).toMatchObject({ status: 'ok', content: '   1 | a\n   2 | b' });
      expect((await editor('an', { command: 'view', path: 'lines.txt', view_range: [Number.MAX_SAFE_INTEGER, -1] })).result.status).toBe('error');
    });

    it('inputs that are not objects, unknown commands and prototype keys are answered, never a 500', async () => {
      for (const input of ['not json', '[]', 7, null, { command: 'undo_edit', path: 'x' }, { command: '__proto__', path: 'x' }, { command: 'constructor', path: 'x' }, { command: 'toString', path: 'x' }, JSON.parse('{"__proto__": {"command": "view"}, "path": "notes.txt"}')]) {
        const { result } = await editor('an', input);
        expect(result.status, JSON.stringify(input)).toBe('invalid_arguments');
      }
      for (const input of [{}, { command: '' }, { command: 7 }, { restart: 'true' }, JSON.parse('{"__proto__": {"command": "touch proto.txt"}}')]) {
        expect((await claude('an', 'bash', input)).result.status, JSON.stringify(input)).toBe('invalid_arguments');
      }
      expect(existsSync(join(workspace, 'proto.txt'))).toBe(false);
    });
  });
});
