import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeEgressTransport } from '../../lib/cli/node-egress.ts';
import type { ToolResult } from '../../lib/dispatch/call.ts';
import { toAnthropicToolResultMessages } from '../../lib/dispatch/formats/anthropic.ts';
import { planAnthropicNativeCalls } from '../../lib/dispatch/formats/anthropic-native.ts';
import { ToolRouter } from '../../lib/dispatch/router.ts';
import { MAX_LISTED_ENTRIES } from '../../lib/exec/limits.ts';
import { startExecServer } from '../../lib/exec/server.ts';
import { policyGovernor, type PolicyConfig } from '../../lib/governance/policy.ts';
import { MemoryStore } from '../../lib/stores/memory.ts';
import { shellTool } from '../../lib/tools/coding/shell.ts';
import { testGateway } from '../helpers/gateway.ts';
import { validManifest } from '../helpers/manifests.ts';
import { MemoryEnvironment } from '../helpers/memory-environment.ts';

const SECRET = 'native-wording-exec-secret-0123456789abcdef';

/**
 * Names a model holding a native tool does not hold: the tools the native one runs as, and their
 * parameters that the native tool lacks. Each is matched as a whole word (case-insensitive), or
 * in the form a message would use it where the word is also plain English (`shell`).
 */
const NOT_HELD = {
  str_replace_based_edit_tool: [
    /\bread_file\b/i, /\bwrite_file\b/i, /\bedit_file\b/i, /\bapply_patch\b/i, /\bfile_path\b/i, /\bold_string\b/i, /\bnew_string\b/i,
    /\breplace_all\b/i, /\boffset\b/i, /\blimit\b/i, /\bcontent\b/i, /\btimeout_ms\b/i, /`shell`/, /\bglob\b/,
  ],
  bash: [/\btimeout_ms\b/i, /`shell`/, /\bshell tool\b/i, /\bread_file\b/i, /\bexecCommand\b/],
  // The model wrote an operation {type, path, diff}: never the patch it became, its markers or its line numbers.
  apply_patch: [/\*\*\* (Begin Patch|End Patch|Add File|Update File|Delete File|Move to)/, /\bhunk header\b/i, /\bon line \d+/i, /\bInvalid patch\b/, /`patch`/],
  shell: [/\bexecCommand\b/, /\bshell tool\b/i],
} as const;

type NativeTool = keyof typeof NOT_HELD;

/** What the model reads must name nothing it does not hold; where it suggests a next step, the names it does hold. */
function expectNativeWording(tool: NativeTool, text: string, suggests: readonly string[] = []): void {
  for (const pattern of NOT_HELD[tool]) expect(text, `${tool} answer names ${pattern}: ${text}`).not.toMatch(pattern);
  for (const name of suggests) expect(text, `${tool} answer should name ${name}`).toContain(name);
}

/**
 * Issue 23, finding 5: Claude holding `str_replace_based_edit_tool` and `bash` was told to "read
 * the file again with read_file", "set replace_all to true", "call read_file with offset=4".
 * Every error path of each native tool (Claude's text editor and bash, the Responses API's
 * apply_patch and shell) is driven through /v1/dispatch in the native format, against a real
 * exec-server over a temporary workspace, and what the model reads is checked for names it does
 * not hold.
 */
describe('attacks: a native tool is answered in its own terms', () => {
  const root = mkdtempSync(join(tmpdir(), 'toolgate-native-wording-'));
  const workspace = join(root, 'ws');
  let exec: Awaited<ReturnType<typeof startExecServer>>;
  let gw: Awaited<ReturnType<typeof testGateway>>;

  beforeAll(async () => {
    mkdirSync(join(workspace, 'src'), { recursive: true });
    mkdirSync(join(workspace, 'many', 'deep'), { recursive: true });
    for (let i = 0; i <= MAX_LISTED_ENTRIES; i++) writeFileSync(join(workspace, 'many', 'deep', `f${i}`), '');
    writeFileSync(join(workspace, 'notes.txt'), 'one\ntwo\nthree\nfour\nfive\n');
    writeFileSync(join(workspace, 'long.txt'), Array.from({ length: 2500 }, (_, i) => `line ${i + 1}`).join('\n'));
    writeFileSync(join(workspace, 'empty.txt'), '');
    writeFileSync(join(workspace, 'twice.js'), 'x = 1;\nx = 1;\n');
    writeFileSync(join(workspace, 'image.bin'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x00, 0x01]));
    writeFileSync(join(workspace, 'src', 'app.js'), 'const a = 1;\n');
    exec = await startExecServer({ root: workspace, secret: SECRET, tenants: ['an', 'angov', 'oa'], port: 0 });
    const execution_environment = { url: exec.url, secret: 'env:EXEC_SECRET' };
    // A closed port: the environment is down.
    const down = { url: 'http://127.0.0.1:9/', secret: 'env:EXEC_SECRET' };
    const all = { read: 'grant', write: 'grant', execute: 'grant' } as const;
    // Commands granted without a human run at most 300 ms here (bash itself asks for 120 s).
    const shortGrant: PolicyConfig = { ...all, rules: [{ tool: 'shell', action: 'grant', max_timeout_ms: 300 }] };
    gw = await testGateway(
      [
        validManifest({ tenant: 'an', profile: 'anthropic', policy: shortGrant, execution_environment, tools: [] }),
        validManifest({ tenant: 'angov', profile: 'anthropic', policy: { read: 'grant', write: 'review', execute: 'review' }, execution_environment, tools: [] }),
        validManifest({ tenant: 'andown', profile: 'anthropic', policy: all, execution_environment: down, tools: [] }),
        validManifest({ tenant: 'oa', profile: 'openai', policy: shortGrant, execution_environment, tools: [] }),
      ],
      {
        an: { tenant: 'an' },
        angov: { tenant: 'angov', principal: 'claude-agent' },
        alice: { tenant: 'angov', principal: 'alice', scopes: ['approvals:decide'] },
        andown: { tenant: 'andown' },
        oa: { tenant: 'oa' },
      },
      {
        env: { EXEC_SECRET: SECRET, TOOLGATE_TENANT_SECRETS: 'an:EXEC_SECRET;angov:EXEC_SECRET;andown:EXEC_SECRET;oa:EXEC_SECRET' },
        egressTransport: nodeEgressTransport(),
      },
    );
  });
  afterAll(async () => {
    await exec?.close();
    rmSync(root, { recursive: true, force: true });
  });

  let thread = 0;
  const post = async (key: string, body: Record<string, unknown>, thread_id = `t${++thread}`) => {
    const response = await gw.request('/v1/dispatch', { key, json: { thread_id, ...body } });
    expect(response.status).toBe(200);
    return (await response.json()) as { results: ToolResult[]; messages: Array<Record<string, unknown>> };
  };
  /** One native tool_use; the tool_result block Claude reads, and toolgate's result. */
  const claude = async (key: string, name: string, input: unknown, thread_id?: string, id = `toolu_${thread}`) => {
    const answer = await post(key, { format: 'anthropic', content: [{ type: 'tool_use', id, name, input }] }, thread_id);
    const block = (answer.messages[0]!.content as Array<{ content: string; is_error: boolean }>)[0]!;
    return { text: block.content, is_error: block.is_error, result: answer.results[0]! };
  };
  const editor = (key: string, input: unknown) => claude(key, 'str_replace_based_edit_tool', input);

  /** An error path: the input, and the names its next step must use. */
  type Path = { input: unknown; suggests?: string[]; ok?: true };

  describe('str_replace_based_edit_tool', () => {
    const answered: Record<string, Path> = {
      'input that is not a JSON object': { input: 'view notes.txt', suggests: ['str_replace_based_edit_tool'] },
      'undo_edit': { input: { command: 'undo_edit', path: 'notes.txt' }, suggests: ['str_replace_based_edit_tool', '"str_replace"'] },
      'an unknown command': { input: { command: 'delete', path: 'notes.txt' }, suggests: ['str_replace_based_edit_tool', 'view, create, str_replace and insert'] },
      'a command without path': { input: { command: 'view' }, suggests: ['`path`'] },
      'a view_range that is not two line numbers': { input: { command: 'view', path: 'notes.txt', view_range: [3] }, suggests: ['view_range'] },
      'a view_range that ends before it starts': { input: { command: 'view', path: 'notes.txt', view_range: [3, 2] }, suggests: ['view_range'] },
      'create without file_text': { input: { command: 'create', path: 'x.txt' }, suggests: ['`file_text`'] },
      'str_replace without old_str': { input: { command: 'str_replace', path: 'notes.txt', new_str: 'x' }, suggests: ['`old_str`'] },
      'str_replace with a new_str that is not text': { input: { command: 'str_replace', path: 'notes.txt', old_str: 'one', new_str: 1 }, suggests: ['`new_str`'] },
      'insert with a negative insert_line': { input: { command: 'insert', path: 'notes.txt', insert_line: -1, insert_text: 'x' }, suggests: ['insert_line'] },
      'insert without insert_text': { input: { command: 'insert', path: 'notes.txt', insert_line: 1 }, suggests: ['`insert_text`'] },
    };
    it.each(Object.entries(answered))('input refused at once: %s', async (_, { input, suggests }) => {
      const { text, result } = await editor('an', input);
      expect(result.status).toBe('invalid_arguments');
      expectNativeWording('str_replace_based_edit_tool', text, suggests);
    });

    const view: Record<string, Path> = {
      'a file longer than one view, without view_range': { input: { command: 'view', path: 'long.txt' }, ok: true, suggests: ['str_replace_based_edit_tool', '"view"', 'view_range [2001, -1]'] },
      'a view_range that stops before the end': { input: { command: 'view', path: 'notes.txt', view_range: [2, 3] }, ok: true, suggests: ['str_replace_based_edit_tool', 'view_range [4, -1]'] },
      'a folder with more entries than a listing holds': { input: { command: 'view', path: 'many' }, ok: true, suggests: ['str_replace_based_edit_tool', '"view"'] },
      'an empty file': { input: { command: 'view', path: 'empty.txt' }, ok: true },
      'a missing file': { input: { command: 'view', path: 'missing.txt' }, suggests: ['str_replace_based_edit_tool', '"view"'] },
      'a view_range past the end of the file': { input: { command: 'view', path: 'notes.txt', view_range: [9, -1] }, suggests: ['view_range', 'from 1 to 5'] },
      'a view_range on a folder': { input: { command: 'view', path: 'src', view_range: [1, 2] }, suggests: ['view_range'] },
      'a binary file': { input: { command: 'view', path: 'image.bin' }, suggests: ['str_replace_based_edit_tool'] },
      'a path below a file': { input: { command: 'view', path: 'notes.txt/inner' } },
      'a path outside the working directory': { input: { command: 'view', path: '../../etc/passwd' } },
    };
    const create: Record<string, Path> = {
      'a folder': { input: { command: 'create', path: 'src', file_text: 'x' }, suggests: ['"create"'] },
      'a path below a file': { input: { command: 'create', path: 'notes.txt/inner.txt', file_text: 'x' } },
      'a path outside the working directory': { input: { command: 'create', path: '../outside.txt', file_text: 'x' } },
    };
    const strReplace: Record<string, Path> = {
      'an empty old_str': { input: { command: 'str_replace', path: 'notes.txt', old_str: '', new_str: 'x' }, suggests: ['old_str', '"insert"', '"create"', 'str_replace_based_edit_tool'] },
      'old_str equal to new_str': { input: { command: 'str_replace', path: 'notes.txt', old_str: 'one', new_str: 'one' }, suggests: ['old_str', 'new_str'] },
      'a missing file': { input: { command: 'str_replace', path: 'missing.txt', old_str: 'a', new_str: 'b' }, suggests: ['str_replace_based_edit_tool', '"create"'] },
      'an old_str the file does not hold': { input: { command: 'str_replace', path: 'notes.txt', old_str: 'six', new_str: '6' }, suggests: ['old_str', 'str_replace_based_edit_tool', '"view"'] },
      'an old_str the file holds twice': { input: { command: 'str_replace', path: 'twice.js', old_str: 'x = 1;', new_str: 'x = 2;' }, suggests: ['old_str'] },
      'a binary file': { input: { command: 'str_replace', path: 'image.bin', old_str: 'PNG', new_str: 'GIF' }, suggests: ['str_replace_based_edit_tool'] },
      'a folder': { input: { command: 'str_replace', path: 'src', old_str: 'a', new_str: 'b' } },
      'a path outside the working directory': { input: { command: 'str_replace', path: '../../etc/passwd', old_str: 'root', new_str: 'x' } },
    };
    const insert: Record<string, Path> = {
      'an empty insert_text': { input: { command: 'insert', path: 'notes.txt', insert_line: 1, insert_text: '' }, suggests: ['insert_text'] },
      'a missing file': { input: { command: 'insert', path: 'missing.txt', insert_line: 0, insert_text: 'x' }, suggests: ['str_replace_based_edit_tool', '"create"'] },
      'a folder': { input: { command: 'insert', path: 'src', insert_line: 0, insert_text: 'x' }, suggests: ['"insert"'] },
      'a binary file': { input: { command: 'insert', path: 'image.bin', insert_line: 0, insert_text: 'x' }, suggests: ['str_replace_based_edit_tool'] },
      'an insert_line past the end': { input: { command: 'insert', path: 'notes.txt', insert_line: 9, insert_text: 'x' }, suggests: ['insert_line', 'from 0'] },
      'a path outside the working directory': { input: { command: 'insert', path: '../../etc/passwd', insert_line: 0, insert_text: 'x' } },
    };
    for (const [command, paths] of Object.entries({ view, create, str_replace: strReplace, insert })) {
      it.each(Object.entries(paths))(`${command}: %s`, async (_, { input, suggests, ok }) => {
        const { text, is_error, result } = await editor('an', input);
        expect(is_error, text).toBe(!ok);
        expect(result.status).toBe(ok ? 'ok' : 'error');
        expectNativeWording('str_replace_based_edit_tool', text, suggests);
      });
    }

    it('every command, when the execution environment is down', async () => {
      for (const input of [
        { command: 'view', path: 'notes.txt' },
        { command: 'create', path: 'new.txt', file_text: 'x' },
        { command: 'str_replace', path: 'notes.txt', old_str: 'one', new_str: '1' },
        { command: 'insert', path: 'notes.txt', insert_line: 0, insert_text: 'x' },
      ]) {
        const { text, result } = await editor('andown', input);
        expect(result.status, input.command).toBe('unavailable');
        expectNativeWording('str_replace_based_edit_tool', text);
      }
    });

    it('a str_replace approved after the file changed fails in the text editor\'s terms, also when the tool_use is sent again', async () => {
      writeFileSync(join(workspace, 'approved.txt'), 'before\n');
      const input = { command: 'str_replace', path: 'approved.txt', old_str: 'before', new_str: 'after' };
      const parked = await claude('angov', 'str_replace_based_edit_tool', input, 'approval-1', 'toolu_approved');
      expect(parked.result.status).toBe('pending_approval');
      writeFileSync(join(workspace, 'approved.txt'), 'changed meanwhile\n');
      const approvalId = String(parked.result.error!.details!.approval_id);
      const decided = await gw.request(`/v1/approvals/${approvalId}`, { key: 'alice', json: { decision: 'approve' } });
      expect(decided.status).toBe(200);
      const again = await claude('angov', 'str_replace_based_edit_tool', input, 'approval-1', 'toolu_approved');
      expect(again.result).toMatchObject({ status: 'error', replayed: true });
      expect(again.text).toContain('old_str was not found in approved.txt');
      expectNativeWording('str_replace_based_edit_tool', again.text, ['str_replace_based_edit_tool', '"view"']);
    });
  });

  describe('bash', () => {
    it.each([
      ['no command', {}],
      ['a blank command', { command: '  ' }],
      ['restart', { restart: true }],
    ])('input answered at once: %s', async (_, input) => {
      const { text } = await claude('an', 'bash', input);
      expectNativeWording('bash', text);
    });

    it('a command holding a NUL byte', async () => {
      const { text, result } = await claude('an', 'bash', { command: 'echo a\u0000b' });
      expect(result.status).toBe('error');
      expectNativeWording('bash', text);
    });

    it('a command stopped at the grant\'s limit is told to split the work, not to ask for a timeout_ms bash cannot send', async () => {
      const { text, result } = await claude('an', 'bash', { command: 'echo started; sleep 5' });
      expect(result.status).toBe('ok');
      expect(text).toContain('[ERROR: Command timed out after 300 ms');
      expectNativeWording('bash', text, ['bash']);
    });

    it('a command that fails, and one whose environment is down', async () => {
      expectNativeWording('bash', (await claude('an', 'bash', { command: 'ls missing-folder' })).text);
      const down = await claude('andown', 'bash', { command: 'ls' });
      expect(down.result.status).toBe('unavailable');
      expectNativeWording('bash', down.text);
    });

    it('a command a human approved, stopped at bash\'s own 120 s, through the pipeline (a recording environment stands in for the wait)', async () => {
      const environment = new MemoryEnvironment();
      environment.script = () => ({ exit_code: null, signal: 'SIGKILL', stdout: 'building...\n', timed_out: true, duration_ms: 120_000 });
      const router = new ToolRouter(undefined, 5000, { governor: policyGovernor({ execute: 'review' }), store: new MemoryStore() });
      router.register(shellTool(environment));
      const [planned] = planAnthropicNativeCalls([{ call_id: 'toolu_build', name: 'bash', arguments: { command: 'make all' } }], { isRegistered: (name) => router.hasTool(name) });
      const context = { tenant: 'acme', principal: 'claude-agent', thread_id: 'build' };
      const parked = await router.execute(planned!.call, context);
      expect(parked.status).toBe('pending_approval');
      const approved = await router.submitApproval(String(parked.error!.details!.approval_id), { decision: 'approve', approver: 'alice' });
      expect(approved).toMatchObject({ ok: true, result: { status: 'ok' } });
      expect(environment.commands[0]!.options.timeout_ms).toBe(120_000);
      const replayed = await router.execute(planned!.call, context);
      const [message] = toAnthropicToolResultMessages([replayed]);
      const text = (message!.content as Array<{ content: string }>)[0]!.content;
      expect(text).toContain('[ERROR: Command timed out after 120000 ms');
      expectNativeWording('bash', text, ['bash', 'split the work']);
    });
  });

  describe('Responses apply_patch_call', () => {
    type Operation = { type: 'create_file' | 'update_file' | 'delete_file'; path: string; diff?: string };
    const patch = async (operation: Operation) => {
      const answer = await post('oa', { format: 'responses', output: [{ type: 'apply_patch_call', id: `apc_${thread}`, call_id: `call_${thread}`, status: 'completed', operation }] });
      const item = answer.messages[0] as { type: string; status: string; output: string };
      expect(item.type).toBe('apply_patch_call_output');
      return item;
    };
    const cases: Record<string, { operation: Operation; suggests?: string[] }> = {
      'an empty update_file diff': { operation: { type: 'update_file', path: 'notes.txt', diff: '' }, suggests: ['update_file diff for notes.txt is empty'] },
      'an update_file diff line that is not a hunk line': { operation: { type: 'update_file', path: 'notes.txt', diff: '@@\n-two\n+2\ngarbage\n' }, suggests: ['Line 4 of the update_file diff for notes.txt', "'garbage'"] },
      'an update_file diff ending in an empty hunk': { operation: { type: 'update_file', path: 'notes.txt', diff: '@@\n-two\n+2\n@@\n' }, suggests: ['the end of the update_file diff for notes.txt'] },
      'an update_file diff whose lines are not in the file': { operation: { type: 'update_file', path: 'notes.txt', diff: '@@\n-six\n+6\n' }, suggests: ['notes.txt'] },
      'an update_file diff whose @@ context is not in the file': { operation: { type: 'update_file', path: 'notes.txt', diff: '@@ nowhere\n-two\n+2\n' }, suggests: ['nowhere'] },
      'an update_file of a missing file': { operation: { type: 'update_file', path: 'missing.txt', diff: '@@\n-a\n+b\n' }, suggests: ['missing.txt'] },
      'a create_file diff line without "+"': { operation: { type: 'create_file', path: 'new.md', diff: '+# Title\nbody\n' }, suggests: ['Line 2 of the create_file diff for new.md', '"body"', '"+"'] },
      'a create_file below a file': { operation: { type: 'create_file', path: 'notes.txt/new.md', diff: '+x\n' } },
      'a delete_file of a missing file': { operation: { type: 'delete_file', path: 'missing.txt' } },
    };
    it.each(Object.entries(cases))('%s', async (_, { operation, suggests }) => {
      const item = await patch(operation);
      expect(item.status).toBe('failed');
      expectNativeWording('apply_patch', item.output, suggests);
    });
  });

  describe('Responses shell_call', () => {
    it('a command holding a NUL byte, and a command stopped at its timeout', async () => {
      const answer = await post('oa', {
        format: 'responses',
        output: [{ type: 'shell_call', id: 'sh_1', call_id: 'call_sh', status: 'completed', action: { commands: ['echo a\u0000b'], timeout_ms: null, max_output_length: null } }],
      });
      const [nul] = (answer.messages[0] as { output: Array<{ stdout: string; stderr: string }> }).output;
      expectNativeWording('shell', `${nul!.stdout}\n${nul!.stderr}`);
      const slow = await post('oa', {
        format: 'responses',
        output: [{ type: 'shell_call', id: 'sh_2', call_id: 'call_slow', status: 'completed', action: { commands: ['sleep 5'], timeout_ms: 200, max_output_length: null } }],
      });
      const [stopped] = (slow.messages[0] as { output: Array<{ stdout: string; stderr: string; outcome: { type: string } }> }).output;
      expect(stopped!.outcome.type).toBe('timeout');
      expectNativeWording('shell', `${stopped!.stdout}\n${stopped!.stderr}`);
    });
  });
});
