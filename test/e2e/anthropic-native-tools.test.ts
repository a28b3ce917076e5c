import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ContentBlock, MessageCreateParams, MessageParam, ToolUseBlock } from '@anthropic-ai/sdk/resources/messages';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeEgressTransport } from '../../lib/cli/node-egress.ts';
import type { ToolResult } from '../../lib/dispatch/call.ts';
import { toAnthropicToolResultMessages } from '../../lib/dispatch/formats/anthropic.ts';
import { BASH_RESTART_MESSAGE } from '../../lib/dispatch/formats/anthropic-native.ts';
import { startExecServer } from '../../lib/exec/server/exec-server.ts';
import { toAnthropicNativeTools } from '../../lib/registry/formats/anthropic-native.ts';
import { testGateway } from '../helpers/gateway.ts';
import { validManifest } from '../helpers/manifests.ts';

const SECRET = 'anthropic-native-exec-secret-0123456789abcdef';

/** A recorded assistant turn's content, as the Messages API returns it. */
const toolUse = (id: string, name: string, input: unknown): ToolUseBlock => ({ type: 'tool_use', id, name, input, caller: { type: 'direct' } });

interface DispatchAnswer {
  results: Array<ToolResult & { error?: { details?: { approval_id?: string } } }>;
  messages: MessageParam[];
}

/** Anthropic's text editor and bash, exported and dispatched through the gateway to a real exec-server. */
describe('Anthropic native client tools (text editor, bash)', () => {
  const root = mkdtempSync(join(tmpdir(), 'toolgate-claude-'));
  let exec: Awaited<ReturnType<typeof startExecServer>>;
  let gw: Awaited<ReturnType<typeof testGateway>>;

  beforeAll(async () => {
    mkdirSync(join(root, 'src', 'lib'), { recursive: true });
    mkdirSync(join(root, '.git'));
    mkdirSync(join(root, 'locked'));
    writeFileSync(join(root, 'notes.txt'), 'one\ntwo\nthree\nfour\nfive\n');
    writeFileSync(join(root, 'src', 'app.js'), 'const a = 1;\nconst b = 1;\n');
    writeFileSync(join(root, 'src', 'lib', 'util.js'), 'export {};\n');
    writeFileSync(join(root, '.git', 'HEAD'), 'ref: refs/heads/main\n');
    writeFileSync(join(root, 'locked', 'secret.txt'), 'keep me\n');
    exec = await startExecServer({ root, secret: SECRET, tenants: ['an', 'gov', 'own'], port: 0 });
    const execution_environment = { url: exec.url, secret: 'env:EXEC_SECRET' };
    const an = validManifest({ tenant: 'an', profile: 'anthropic', policy: { read: 'grant', write: 'grant', execute: 'grant' }, execution_environment, tools: [] });
    const gov = validManifest({
      tenant: 'gov',
      profile: 'anthropic',
      execution_environment,
      policy: {
        read: 'grant',
        write: 'review',
        execute: 'review',
        rules: [
          { tool: 'shell', arguments: { command: { class: 'read_only_commands' } }, action: 'grant' },
          { tool: 'write_file', arguments: { file_path: 'locked/.*' }, action: 'deny' },
          { tool: 'edit_file', arguments: { file_path: 'locked/.*' }, action: 'deny' },
        ],
      },
      tools: [],
    });
    const own = validManifest({
      tenant: 'own',
      profile: 'anthropic',
      policy: { read: 'grant', write: 'grant', execute: 'grant' },
      execution_environment,
      tools: [{ name: 'bash', description: "The tenant's own bash", tier: 'read', input_schema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] }, executor: { kind: 'builtin', name: 'echo' } }],
    });
    gw = await testGateway([an, gov, own], {
      an: { tenant: 'an', scopes: ['audit:read'] },
      gov: { tenant: 'gov', principal: 'claude-agent' },
      alice: { tenant: 'gov', principal: 'alice', scopes: ['approvals:decide'] },
      own: { tenant: 'own' },
    }, { env: { EXEC_SECRET: SECRET, TOOLGATE_TENANT_SECRETS: 'an:EXEC_SECRET;gov:EXEC_SECRET;own:EXEC_SECRET' }, egressTransport: nodeEgressTransport() });
  });
  afterAll(async () => {
    await exec?.close();
    rmSync(root, { recursive: true, force: true });
  });

  const send = async (key: string, thread: string, content: ContentBlock[]): Promise<DispatchAnswer> => {
    const response = await gw.request('/v1/dispatch', { key, json: { thread_id: thread, format: 'anthropic', content } });
    expect(response.status).toBe(200);
    return (await response.json()) as DispatchAnswer;
  };
  /** One native call: its tool_result block and its toolgate result. */
  const one = async (key: string, name: string, input: unknown, id = `toolu_${Math.random().toString(36).slice(2)}`) => {
    const answer = await send(key, `t-${id}`, [{ type: 'text', text: 'Let me do that.', citations: null }, toolUse(id, name, input)]);
    const block = (answer.messages[0].content as Array<{ tool_use_id: string; content: string; is_error: boolean }>)[0];
    expect(block.tool_use_id).toBe(id);
    return { block, result: answer.results[0] };
  };
  const editor = (key: string, input: Record<string, unknown>) => one(key, 'str_replace_based_edit_tool', input);
  const tools = async (key: string, query = 'format=anthropic&native=1') => (await (await gw.request(`/v1/tools?${query}`, { key })).json()).tools;

  describe('export', () => {
    it('offers the text editor and bash in place of read_file/write_file/edit_file and shell; grep and glob stay function tools', async () => {
      const exported = await tools('an');
      expect(exported.map((t: { name: string }) => t.name)).toEqual(['str_replace_based_edit_tool', 'bash', 'grep', 'glob']);
      expect(exported[0]).toEqual({ type: 'text_editor_20250728', name: 'str_replace_based_edit_tool', max_characters: 50_000 });
      expect(exported[1]).toEqual({ type: 'bash_20250124', name: 'bash' });
      expect(exported[2]).toMatchObject({ name: 'grep', input_schema: { type: 'object' } });
      expect(exported[2].type).toBeUndefined();
      // Without native=1 nothing changes.
      expect((await tools('an', 'format=anthropic')).map((t: { name: string }) => t.name)).toEqual(['read_file', 'write_file', 'edit_file', 'shell', 'grep', 'glob']);
    });

    it('answers 400 for a native flag it cannot read or a format without native tools', async () => {
      const bad = await gw.request('/v1/tools?format=anthropic&native=yes', { key: 'an' });
      expect(bad.status).toBe(400);
      expect((await bad.json()).error.message).toBe('native must be 1 or 0 (true or false)');
      const gemini = await gw.request('/v1/tools?format=gemini&native=1', { key: 'an' });
      expect(gemini.status).toBe(400);
      expect((await gemini.json()).error.message).toBe('native tools exist for format=responses, anthropic (got format=gemini)');
    });

    it('a tenant tool named bash is the tenant\'s: exported as its own function tool, shell stays, and its calls reach it', async () => {
      const exported = await tools('own');
      expect(exported.map((t: { name: string }) => t.name)).toEqual(['str_replace_based_edit_tool', 'shell', 'grep', 'glob', 'bash']);
      expect(exported[4]).toMatchObject({ name: 'bash', description: "The tenant's own bash" });
      const { block, result } = await one('own', 'bash', { text: 'mine' });
      expect(block).toMatchObject({ content: 'mine', is_error: false });
      expect(result.name).toBe('bash');
    });

    it('type-checks against @anthropic-ai/sdk: the exported tools go into MessageCreateParams, the results are MessageParams', async () => {
      const runtime = (await gw.tenants.runtime('an'))!;
      const native = toAnthropicNativeTools(runtime.registry.definitions(), { isRegistered: (name) => runtime.registry.has(name) });
      // A mismatch between toolgate's types and the SDK's fails `tsc --noEmit` here.
      const request: MessageCreateParams = { model: 'claude-sonnet-4-5', max_tokens: 1024, tools: native, messages: [{ role: 'user', content: 'Fix the bug in src/app.js' }] };
      expect(request.tools).toEqual(await tools('an'));
      const answer = await send('an', 'types-1', [toolUse('toolu_types', 'str_replace_based_edit_tool', { command: 'view', path: 'notes.txt', view_range: [1, 1] })]);
      const messages: MessageParam[] = toAnthropicToolResultMessages(answer.results);
      expect(answer.messages).toEqual(messages);
      const next: MessageCreateParams = { ...request, messages: [...request.messages, { role: 'assistant', content: [toolUse('toolu_types', 'str_replace_based_edit_tool', {})] }, ...messages] };
      expect(next.messages).toHaveLength(3);
    });
  });

  describe('view', () => {
    it('shows a file with line numbers, a view_range, and -1 for the end of the file', async () => {
      expect((await editor('an', { command: 'view', path: 'notes.txt' })).block).toEqual({
        type: 'tool_result', tool_use_id: expect.any(String), is_error: false, content: '   1 | one\n   2 | two\n   3 | three\n   4 | four\n   5 | five',
      });
      expect((await editor('an', { command: 'view', path: 'notes.txt', view_range: [2, 3] })).block.content).toBe('   2 | two\n   3 | three\n\n[Showing lines 2-3 of 5. To read more, call str_replace_based_edit_tool with command "view" and view_range [4, -1].]');
      expect((await editor('an', { command: 'view', path: 'notes.txt', view_range: [4, -1] })).block.content).toBe('   4 | four\n   5 | five');
      expect((await editor('an', { command: 'view', path: `${root}/notes.txt`, view_range: [5, 5] })).block.content).toBe('   5 | five');
    });

    it('lists a directory two levels deep without hidden items', async () => {
      const { block, result } = await editor('an', { command: 'view', path: '.' });
      expect(result.name).toBe('read_file');
      expect(block.content).toBe('Files and folders in the working directory, up to 2 levels deep (hidden items left out):\nlocked/\nlocked/secret.txt\nnotes.txt\nsrc/\nsrc/app.js\nsrc/lib/');
      expect((await editor('an', { command: 'view', path: 'src', view_range: [1, 2] })).block).toMatchObject({ is_error: true, content: expect.stringContaining('src is a directory: view_range only applies to files') });
    });

    it('refuses bad ranges and missing paths as errors Claude can act on', async () => {
      for (const view_range of [[0, 2], [3, 2], [1], [1, 'x'], [1, -2]]) {
        const { block, result } = await editor('an', { command: 'view', path: 'notes.txt', view_range });
        expect(result.status).toBe('invalid_arguments');
        expect(block).toMatchObject({ is_error: true, content: `view_range must be two line numbers [start, end] with 1 <= start <= end, or end -1 for the end of the file (got ${JSON.stringify(view_range)}).` });
      }
      expect((await editor('an', { command: 'view', path: 'notes.txt', view_range: [9, -1] })).block).toMatchObject({ is_error: true, content: expect.stringContaining('view_range starts at line 9, past the end of notes.txt, which has 5 lines') });
      expect((await editor('an', { command: 'view', path: 'missing.txt' })).block).toMatchObject({ is_error: true, content: 'File not found: missing.txt. Check the path, or call str_replace_based_edit_tool with command "view" on its folder to list the files there.' });
      expect((await editor('an', { command: 'view' })).block).toMatchObject({ is_error: true, content: 'the "view" command needs `path` (a non-empty string).' });
      expect((await editor('an', { command: 'delete', path: 'notes.txt' })).block.content).toBe('Unknown command "delete". The commands of str_replace_based_edit_tool are view, create, str_replace and insert.');
      expect((await editor('an', { command: 'undo_edit', path: 'notes.txt' })).block.is_error).toBe(true);
    });

    it('refuses paths outside the working directory, for every command', async () => {
      const outside = 'Path ../../etc/passwd is outside the working directory. Use a path relative to the working directory, or an absolute path inside it.';
      for (const input of [
        { command: 'view', path: '../../etc/passwd' },
        { command: 'create', path: '../../etc/passwd', file_text: 'x' },
        { command: 'str_replace', path: '../../etc/passwd', old_str: 'root', new_str: 'x' },
        { command: 'insert', path: '../../etc/passwd', insert_line: 0, insert_text: 'x' },
      ]) {
        expect((await editor('an', input)).block, input.command).toMatchObject({ is_error: true, content: outside });
      }
      expect((await editor('an', { command: 'view', path: '/etc/passwd' })).block.is_error).toBe(true);
    });
  });

  describe('create, str_replace and insert', () => {
    it('create writes the file (parent folders too)', async () => {
      const { block, result } = await editor('an', { command: 'create', path: 'new/hello.py', file_text: 'print("hi")\n' });
      expect(result).toMatchObject({ name: 'write_file', status: 'ok' });
      expect(block).toMatchObject({ is_error: false, content: 'Wrote 12 bytes to new/hello.py' });
      expect(readFileSync(join(root, 'new', 'hello.py'), 'utf8')).toBe('print("hi")\n');
      expect((await editor('an', { command: 'create', path: 'x.txt' })).block).toMatchObject({ is_error: true, content: 'the "create" command needs `file_text` (a string).' });
    });

    it('str_replace keeps edit_file\'s exact-match and uniqueness rules', async () => {
      writeFileSync(join(root, 'edit.js'), 'const a = 1;\nconst b = 1;\n');
      const ok = await editor('an', { command: 'str_replace', path: 'edit.js', old_str: 'const a = 1;', new_str: 'const a = 2;' });
      expect(ok.block).toMatchObject({ is_error: false, content: 'Replaced 1 occurrence in edit.js.' });
      expect(readFileSync(join(root, 'edit.js'), 'utf8')).toBe('const a = 2;\nconst b = 1;\n');
      const missing = await editor('an', { command: 'str_replace', path: 'edit.js', old_str: 'const c', new_str: 'x' });
      expect(missing.block).toMatchObject({ is_error: true, content: expect.stringContaining('old_str was not found in edit.js') });
      const twice = await editor('an', { command: 'str_replace', path: 'edit.js', old_str: ' = ', new_str: ' := ' });
      expect(twice.block).toMatchObject({ is_error: true, content: expect.stringContaining('old_str occurs 2 times in edit.js') });
      // new_str left out deletes the text.
      expect((await editor('an', { command: 'str_replace', path: 'edit.js', old_str: 'const b = 1;\n' })).block.is_error).toBe(false);
      expect(readFileSync(join(root, 'edit.js'), 'utf8')).toBe('const a = 2;\n');
    });

    it('insert puts lines at the top (0), in the middle and at the end, and refuses a line past the end', async () => {
      writeFileSync(join(root, 'list.txt'), 'b\nd\n');
      expect((await editor('an', { command: 'insert', path: 'list.txt', insert_line: 0, insert_text: 'a' })).block).toMatchObject({ is_error: false, content: 'Inserted 1 line at the top of list.txt.' });
      expect((await editor('an', { command: 'insert', path: 'list.txt', insert_line: 2, insert_text: 'c\n' })).block.content).toBe('Inserted 1 line after line 2 of list.txt.');
      expect((await editor('an', { command: 'insert', path: 'list.txt', insert_line: 4, new_str: 'e' })).block.is_error).toBe(false);
      expect(readFileSync(join(root, 'list.txt'), 'utf8')).toBe('a\nb\nc\nd\ne\n');
      const past = await editor('an', { command: 'insert', path: 'list.txt', insert_line: 9, insert_text: 'z' });
      expect(past.block).toMatchObject({ is_error: true, content: 'insert_line 9 is past the end of list.txt, which has 5 lines. Use a line number from 0 (insert at the top) to 5 (insert after the last line).' });
      expect((await editor('an', { command: 'insert', path: 'list.txt', insert_line: -1, insert_text: 'z' })).block).toMatchObject({ is_error: true, content: expect.stringContaining('insert_line must be a line number') });
      expect(readFileSync(join(root, 'list.txt'), 'utf8')).toBe('a\nb\nc\nd\ne\n');
    });
  });

  describe('bash', () => {
    it('runs the command through shell, and restart says the session restarted (commands are stateless)', async () => {
      const { block, result } = await one('an', 'bash', { command: 'cat notes.txt | wc -l' });
      expect(result.name).toBe('shell');
      expect(block.is_error).toBe(false);
      expect(block.content).toMatch(/^Exit code: 0\nDuration: \d+ ms\n--- stdout ---\n5\n--- stderr ---\n\(empty\)$/);
      expect((await one('an', 'bash', { restart: true })).block).toMatchObject({ is_error: false, content: BASH_RESTART_MESSAGE });
      expect((await one('an', 'bash', {})).block).toMatchObject({ is_error: true, content: 'bash needs either `command` (the command to run, a non-empty string) or `restart: true`.' });
    });

    it('keeps results in request order in one user message, for a batch mixing native and function tools', async () => {
      const answer = await send('an', 'batch-1', [
        toolUse('toolu_a', 'bash', { command: 'echo first' }),
        toolUse('toolu_b', 'bash', { restart: true }),
        toolUse('toolu_c', 'grep', { pattern: 'three', path: 'notes.txt' }),
        toolUse('toolu_d', 'str_replace_based_edit_tool', { command: 'nope' }),
      ]);
      expect(answer.messages).toHaveLength(1);
      const blocks = answer.messages[0].content as Array<{ tool_use_id: string; is_error: boolean }>;
      expect(blocks.map((b) => [b.tool_use_id, b.is_error])).toEqual([['toolu_a', false], ['toolu_b', false], ['toolu_c', false], ['toolu_d', true]]);
    });
  });

  describe('governance cannot be bypassed through the native names', () => {
    it('writes the policy denies for write_file and edit_file are denied through the text editor too', async () => {
      for (const input of [
        { command: 'create', path: 'locked/new.txt', file_text: 'x' },
        { command: 'str_replace', path: 'locked/secret.txt', old_str: 'keep', new_str: 'lose' },
        { command: 'insert', path: 'locked/secret.txt', insert_line: 0, insert_text: 'x' },
      ]) {
        const { block, result } = await editor('gov', input);
        expect(result.status, input.command).toBe('denied');
        expect(block.is_error).toBe(true);
      }
      expect(readFileSync(join(root, 'locked', 'secret.txt'), 'utf8')).toBe('keep me\n');
      expect(existsSync(join(root, 'locked', 'new.txt'))).toBe(false);
      // Reads follow the read tier: granted.
      expect((await editor('gov', { command: 'view', path: 'locked/secret.txt' })).block).toMatchObject({ is_error: false, content: '   1 | keep me' });
    });

    it('a shell grant by class applies to bash; another command waits for a human', async () => {
      const granted = await one('gov', 'bash', { command: 'ls src' });
      expect(granted.block).toMatchObject({ is_error: false, content: expect.stringContaining('app.js') });
      const parked = await one('gov', 'bash', { command: 'touch made-by-bash.txt' });
      expect(parked.result.status).toBe('pending_approval');
      expect(parked.block).toMatchObject({ is_error: true, content: expect.stringContaining('needs a human\'s approval') });
      expect(existsSync(join(root, 'made-by-bash.txt'))).toBe(false);
    });

    it('a native write parked for approval runs once when approved; the same tool_use replays its result', async () => {
      const content = [toolUse('toolu_park', 'str_replace_based_edit_tool', { command: 'create', path: 'approved.txt', file_text: 'approved\n' })];
      const first = await send('gov', 'park-1', content);
      expect(first.results[0]).toMatchObject({ name: 'write_file', status: 'pending_approval', is_error: true });
      expect(existsSync(join(root, 'approved.txt'))).toBe(false);
      const approvalId = first.results[0].error!.details!.approval_id!;
      const listed = await (await gw.request(`/v1/approvals/${approvalId}`, { key: 'alice' })).json();
      expect(listed).toMatchObject({ tool: 'write_file', arguments: { file_path: 'approved.txt', content: 'approved\n' } });
      const decided = await gw.request(`/v1/approvals/${approvalId}`, { key: 'alice', json: { decision: 'approve' } });
      expect(decided.status).toBe(200);
      expect(readFileSync(join(root, 'approved.txt'), 'utf8')).toBe('approved\n');
      const again = await send('gov', 'park-1', content);
      expect(again.results[0]).toMatchObject({ status: 'ok', replayed: true, content: 'Wrote 9 bytes to approved.txt' });
      expect(again.messages).toEqual([{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_park', content: 'Wrote 9 bytes to approved.txt', is_error: false }] }]);
      // The same id with other input is a conflict, never a second write.
      const other = await send('gov', 'park-1', [toolUse('toolu_park', 'str_replace_based_edit_tool', { command: 'create', path: 'approved.txt', file_text: 'changed\n' })]);
      expect(other.results[0].status).toBe('conflict');
      expect(readFileSync(join(root, 'approved.txt'), 'utf8')).toBe('approved\n');
    });

    it('the audit trail records the governed tool the native call ran as', async () => {
      await send('an', 'audit-1', [toolUse('toolu_audit', 'str_replace_based_edit_tool', { command: 'view', path: 'notes.txt', view_range: [1, 1] })]);
      const { envelopes } = await (await gw.request('/v1/audit?thread_id=audit-1', { key: 'an' })).json();
      const calls = envelopes.map((e: { type: string; call_id: string; tool: string }) => [e.type, e.call_id, e.tool]);
      expect(calls).toContainEqual(['tool.call.request', 'toolu_audit', 'read_file']);
      expect(calls).toContainEqual(['tool.call.result', 'toolu_audit', 'read_file']);
    });
  });
});
