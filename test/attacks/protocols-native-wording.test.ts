import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeEgressTransport } from '../../lib/cli/node-egress.ts';
import type { ToolResult } from '../../lib/dispatch/call.ts';
import { toAnthropicToolResultMessages } from '../../lib/dispatch/formats/anthropic.ts';
import { planAnthropicNativeCalls } from '../../lib/dispatch/formats/anthropic-native.ts';
import { responsesFormat } from '../../lib/dispatch/formats/responses.ts';
import { ToolRouter } from '../../lib/dispatch/router.ts';
import { MAX_LISTED_ENTRIES } from '../../lib/exec/limits.ts';
import { startExecServer } from '../../lib/exec/server/exec-server.ts';
import { updateApproval } from '../../lib/governance/approvals.ts';
import { policyGovernor, type PolicyConfig } from '../../lib/governance/policy.ts';
import type { PolicyRule } from '../../lib/governance/rules.ts';
import type { JsonSchema } from '../../lib/registry/json.ts';
import { MemoryStore } from '../../lib/stores/memory.ts';
import type { StateRecord, ThreadRef } from '../../lib/stores/store.ts';
import { shellTool } from '../../lib/tools/coding/shell.ts';
import { testGateway } from '../helpers/gateway.ts';
import { validManifest } from '../helpers/manifests.ts';
import { MemoryEnvironment } from '../helpers/memory-environment.ts';
import { mortalStore } from '../helpers/mortal-store.ts';

const SECRET = 'native-wording-exec-secret-0123456789abcdef';

/**
 * Names a model holding a native tool does not hold: the tools the native one runs as, and their
 * parameters that the native tool lacks. Each is matched as a whole word (case-insensitive), or
 * in the form a message would use it where the word is also plain English (`shell`).
 */
const NOT_HELD = {
  str_replace_based_edit_tool: [
    /\bread_file\b/i, /\bwrite_file\b/i, /\bedit_file\b/i, /\bapply_patch\b/i, /\bfile_path\b/i, /\bold_string\b/i, /\bnew_string\b/i,
    /\breplace_all\b/i, /\boffset\b/i, /\blimit\b/i, /\bcontent\b/i, /\btimeout_ms\b/i, /`shell`/, /\bglob\b/, /\bcall_id\b/,
  ],
  // A tool_use has an id, not a call_id.
  bash: [/\btimeout_ms\b/i, /`shell`/, /\(shell\)/, /\bshell tool\b/i, /\bread_file\b/i, /\bexecCommand\b/, /\bcall_id\b/],
  // The model wrote an operation {type, path, diff}: never the patch it became, its markers or its line numbers.
  apply_patch: [/\*\*\* (Begin Patch|End Patch|Add File|Update File|Delete File|Move to)/, /\bhunk header\b/i, /\bon line \d+/i, /\bInvalid patch\b/, /`patch`/],
  // A shell_call holds commands: each runs as shell's `command`.
  shell: [/\bexecCommand\b/, /\bshell tool\b/i, /`command`/],
} as const;

type NativeTool = keyof typeof NOT_HELD;

/** Policy rules on the tools the native ones run as: a deny rule's reason, the tenant's words, names them. */
const GOVERNED_RULES: Record<'an' | 'oa', PolicyRule[]> = {
  an: [
    { tool: 'write_file', arguments: { file_path: 'frozen/.*' }, action: 'deny', description: 'write_file may not touch frozen/' },
    { tool: 'shell', arguments: { command: 'rm .*' }, action: 'deny' },
  ],
  oa: [
    { tool: 'apply_patch', arguments: { patch: '[\\s\\S]*frozen/[\\s\\S]*' }, action: 'deny', description: 'apply_patch may not touch frozen/' },
    { tool: 'shell', arguments: { command: 'rm .*' }, action: 'deny' },
  ],
};

const object = (properties: Record<string, JsonSchema>, required: string[]): JsonSchema => ({ type: 'object', properties, required, additionalProperties: false });

/** A tenant's own, stricter schemas for the built-in coding tools (a manifest entry may change a built-in's schema). */
const STRICT_TOOLS: Record<'an' | 'oa', Array<[string, JsonSchema]>> = {
  an: [
    ['read_file', object({ file_path: { type: 'string' }, offset: { type: 'integer', maximum: 100 }, limit: { type: 'integer', maximum: 50 } }, ['file_path'])],
    ['write_file', object({ file_path: { type: 'string', pattern: '^src/' }, content: { type: 'string', maxLength: 10 }, insert_line: { type: 'integer', maximum: 3 } }, ['file_path', 'content'])],
    // reviewed_by is nothing the text editor can send.
    ['edit_file', object({ file_path: { type: 'string' }, old_string: { type: 'string', maxLength: 5 }, new_string: { type: 'string' }, reviewed_by: { type: 'string' } }, ['file_path', 'old_string', 'new_string', 'reviewed_by'])],
    // bash always runs with a timeout_ms of 120 s, more than this tenant takes.
    ['shell', object({ command: { type: 'string', maxLength: 20 }, timeout_ms: { type: 'integer', maximum: 60_000 } }, ['command'])],
  ],
  oa: [['apply_patch', object({ patch: { type: 'string', maxLength: 60 } }, ['patch'])]],
};

/** A store whose claims fail for some tenants' calls, as an unreachable store's do (keys and manifests still read). */
class StoreUnreachableFor extends MemoryStore {
  readonly #tenants: ReadonlySet<string>;
  constructor(tenants: string[]) {
    super();
    this.#tenants = new Set(tenants);
  }
  override async claimWithHead(key: string, record: StateRecord, thread: ThreadRef) {
    if (this.#tenants.has(thread.tenant)) throw new Error('connect ECONNREFUSED 127.0.0.1:6379');
    return super.claimWithHead(key, record, thread);
  }
}

/** An exec-server that stopped answering: it takes every request and answers none until released. */
async function stallingServer() {
  const held: ServerResponse[] = [];
  let arrived = () => {};
  const server = createServer((_request, response) => {
    held.push(response);
    arrived();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    /** Resolves when the next request arrives. */
    nextRequest: () => new Promise<void>((resolve) => (arrived = resolve)),
    /** Drops the held requests: their callers see the connection fail. */
    release: () => held.splice(0).forEach((response) => response.socket?.destroy()),
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

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
 * not hold: the tools' own answers, and the gateway's (policy, scopes, approvals, idempotency,
 * timeouts, stores, the validation of the arguments it translated).
 */
describe('attacks: a native tool is answered in its own terms', () => {
  const root = mkdtempSync(join(tmpdir(), 'toolgate-native-wording-'));
  const workspace = join(root, 'ws');
  let exec: Awaited<ReturnType<typeof startExecServer>>;
  let stall: Awaited<ReturnType<typeof stallingServer>>;
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
    const running = ['an', 'angov', 'anstrict', 'anbroken', 'oa', 'oagov', 'oastrict', 'oabroken'];
    exec = await startExecServer({ root: workspace, secret: SECRET, tenants: running, port: 0 });
    stall = await stallingServer();
    const execution_environment = { url: exec.url, secret: 'env:EXEC_SECRET' };
    // A closed port: the environment is down.
    const down = { url: 'http://127.0.0.1:9/', secret: 'env:EXEC_SECRET' };
    const stalled = { url: stall.url, secret: 'env:EXEC_SECRET' };
    const all = { read: 'grant', write: 'grant', execute: 'grant' } as const;
    // Commands granted without a human run at most 300 ms here (bash itself asks for 120 s).
    const shortGrant: PolicyConfig = { ...all, rules: [{ tool: 'shell', action: 'grant', max_timeout_ms: 300 }] };
    const reviewed = { read: 'grant', write: 'review', execute: 'review' } as const;
    const tenant = (name: string, profile: 'anthropic' | 'openai', policy: PolicyConfig, environment: typeof down, tools: unknown[] = []) =>
      validManifest({ tenant: name, profile, policy, execution_environment: environment, tools });
    const builtin = (name: string, fields: Record<string, unknown>) => ({ name, executor: { kind: 'builtin' }, ...fields });
    const timesOut = (...names: string[]) => names.map((name) => builtin(name, { timeout_ms: 200 }));
    const scoped = (...names: string[]) => names.map((name) => builtin(name, { scopes: ['coding:write'] }));
    const manifests = [
      tenant('an', 'anthropic', shortGrant, execution_environment),
      tenant('angov', 'anthropic', { ...reviewed, rules: GOVERNED_RULES.an }, execution_environment),
      tenant('andown', 'anthropic', all, down),
      tenant('anstall', 'anthropic', all, stalled, timesOut('read_file', 'write_file', 'edit_file', 'shell')),
      tenant('anwait', 'anthropic', all, stalled),
      tenant('anscope', 'anthropic', all, execution_environment, scoped('write_file', 'edit_file', 'shell')),
      tenant('anstrict', 'anthropic', all, execution_environment, STRICT_TOOLS.an.map(([name, input_schema]) => builtin(name, { input_schema }))),
      tenant('anbroken', 'anthropic', { ...all, write: 'review' }, execution_environment),
      tenant('oa', 'openai', shortGrant, execution_environment),
      tenant('oagov', 'openai', { ...reviewed, rules: GOVERNED_RULES.oa }, execution_environment),
      tenant('oadown', 'openai', all, down),
      tenant('oastall', 'openai', all, stalled, timesOut('apply_patch', 'shell')),
      tenant('oawait', 'openai', all, stalled),
      tenant('oascope', 'openai', all, execution_environment, scoped('apply_patch', 'shell')),
      tenant('oastrict', 'openai', all, execution_environment, STRICT_TOOLS.oa.map(([name, input_schema]) => builtin(name, { input_schema }))),
      tenant('oabroken', 'openai', { ...all, write: 'review' }, execution_environment),
    ];
    // Each tenant's agent key is named like the tenant; alice and bob approve.
    const keys = Object.fromEntries(manifests.map((m) => [m.tenant, { tenant: m.tenant, principal: `${m.tenant}-agent` }]));
    const secrets = manifests.map((m) => `${m.tenant}:EXEC_SECRET`).join(';');
    gw = await testGateway(
      manifests,
      { ...keys, alice: { tenant: 'angov', principal: 'alice', scopes: ['approvals:decide'] }, bob: { tenant: 'oagov', principal: 'bob', scopes: ['approvals:decide'] } },
      {
        store: new StoreUnreachableFor(['anbroken', 'oabroken']),
        env: { EXEC_SECRET: SECRET, TOOLGATE_TENANT_SECRETS: secrets },
        egressTransport: nodeEgressTransport(),
      },
    );
  });
  afterAll(async () => {
    await exec?.close();
    await stall?.close();
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

  /**
   * What the gateway itself says of a native call (policy, scopes, approvals, idempotency,
   * timeouts, stores, validation of the arguments it translated), for each native tool in turn.
   */
  describe("the gateway's own messages", () => {
    type Sent = { text: string; result: ToolResult };
    /** What the model reads: the tool_result's text, an apply_patch_call_output's output, a shell_call_output's stdout and stderr. */
    const SEND: Record<NativeTool, (key: string, input: unknown, thread_id: string, id: string) => Promise<Sent>> = {
      str_replace_based_edit_tool: (key, input, thread_id, id) => claude(key, 'str_replace_based_edit_tool', input, thread_id, id),
      bash: (key, input, thread_id, id) => claude(key, 'bash', input, thread_id, id),
      apply_patch: async (key, operation, thread_id, id) => {
        const answer = await post(key, { format: 'responses', output: [{ type: 'apply_patch_call', id: `apc_${id}`, call_id: id, status: 'completed', operation }] }, thread_id);
        return { text: (answer.messages[0] as { output: string }).output, result: answer.results[0]! };
      },
      shell: async (key, action, thread_id, id) => {
        const item = { type: 'shell_call', id: `sh_${id}`, call_id: id, status: 'completed', action: { timeout_ms: null, max_output_length: null, ...(action as object) } };
        const answer = await post(key, { format: 'responses', output: [item] }, thread_id);
        const entries = (answer.messages[0] as { output: Array<{ stdout: string; stderr: string }> }).output;
        return { text: entries.map((entry) => `${entry.stdout}\n${entry.stderr}`).join('\n'), result: answer.results.at(-1)! };
      },
    };

    /**
     * Each native tool: its tenants' prefix, how messages must name it, its id and input fields,
     * the tool it runs as (which approvers and policies name), a harmless call (write or execute
     * tier, made unique by `v`), one the tenant's deny rule matches and that rule's reason as the model reads it.
     */
    const TOOLS = [
      {
        tool: 'str_replace_based_edit_tool', family: 'an', label: '`str_replace_based_edit_tool` (command "create")', callId: 'tool_use id', input: 'input', runsAs: 'write_file',
        harmless: (v: string) => ({ command: 'create', path: `gen/${v}.txt`, file_text: v }),
        frozen: { command: 'create', path: 'frozen/x.txt', file_text: 'x' }, denied: 'str_replace_based_edit_tool may not touch frozen/',
      },
      {
        tool: 'bash', family: 'an', label: '`bash`', callId: 'tool_use id', input: 'input', runsAs: 'shell',
        harmless: (v: string) => ({ command: `echo ${v}` }),
        frozen: { command: 'rm -rf gen' }, denied: 'policy rule 2 (bash) says deny',
      },
      {
        tool: 'apply_patch', family: 'oa', label: '`apply_patch`', callId: 'call_id', input: 'operation', runsAs: 'apply_patch',
        harmless: (v: string) => ({ type: 'create_file', path: `gen/${v}.txt`, diff: `+${v}\n` }),
        frozen: { type: 'create_file', path: 'frozen/x.txt', diff: '+x\n' }, denied: 'apply_patch may not touch frozen/',
      },
      {
        tool: 'shell', family: 'oa', label: '`shell`', callId: 'call_id', input: 'commands', runsAs: 'shell',
        harmless: (v: string) => ({ commands: [`echo ${v}`] }),
        frozen: { commands: ['rm -rf gen'] }, denied: 'policy rule 2 (shell) says deny',
      },
    ] as const;
    type Tool = (typeof TOOLS)[number];

    let made = 0;
    /** A new thread and call id, so each call is its own. */
    const fresh = (c: Tool) => ({ thread_id: `g${++made}`, id: `${c.family === 'an' ? 'toolu' : 'call'}_g${made}`, v: `v${made}` });
    /** A call of the native tool by the agent of `<family><tenant>` (e.g. "angov"). */
    const send = (c: Tool, tenant: string, input: unknown, ids = fresh(c)) => SEND[c.tool](`${c.family}${tenant}`, input, ids.thread_id, ids.id);
    const decide = async (c: Tool, result: ToolResult, decision: 'approve' | 'reject', reason: string) => {
      const approver = c.family === 'an' ? 'alice' : 'bob';
      const response = await gw.request(`/v1/approvals/${String(result.error!.details!.approval_id)}`, { key: approver, json: { decision, reason } });
      expect(response.status).toBe(200);
    };
    /** Parks a harmless call for approval; the same call again, to send later. */
    const parked = async (c: Tool) => {
      const ids = fresh(c);
      const first = await send(c, 'gov', c.harmless(ids.v), ids);
      expect(first.result.status).toBe('pending_approval');
      expectNativeWording(c.tool, first.text, [`Tool ${c.label} needs a human's approval`, `same ${c.callId} and ${c.input}`, `under a new ${c.callId}`]);
      return { result: first.result, again: () => send(c, 'gov', c.harmless(ids.v), ids) };
    };

    it.each(TOOLS)('$tool: a deny rule, its reason in the native tool\'s name', async (c) => {
      const { text, result } = await send(c, 'gov', c.frozen);
      expect(result.status).toBe('denied');
      expectNativeWording(c.tool, text, [`Tool ${c.label} is denied by policy: ${c.denied}.`]);
    });

    it.each(TOOLS)('$tool: a scope the key lacks', async (c) => {
      const { text, result } = await send(c, 'scope', c.harmless('scoped'));
      expect(result.status).toBe('forbidden');
      expectNativeWording(c.tool, text, [`Tool ${c.label} requires scope \`coding:write\``]);
    });

    it.each(TOOLS)('$tool: parked, then approved with a reason naming the tool it runs as', async (c) => {
      const call = await parked(c);
      await decide(c, call.result, 'approve', `fine for ${c.runsAs}`);
      const { text, result } = await call.again();
      expect(result).toMatchObject({ status: 'ok', replayed: true });
      expectNativeWording(c.tool, text, [`fine for ${c.tool}"]`]);
    });

    it.each(TOOLS)('$tool: parked, then rejected with a reason naming the tool it runs as', async (c) => {
      const call = await parked(c);
      await decide(c, call.result, 'reject', `no ${c.runsAs} on Fridays`);
      const { text, result } = await call.again();
      expect(result.status).toBe('denied');
      expectNativeWording(c.tool, text, [`rejected this call of ${c.label}: no ${c.tool} on Fridays. It did not run.`]);
    });

    it.each(TOOLS)('$tool: parked, then expired', async (c) => {
      const call = await parked(c);
      await updateApproval(gw.store, String(call.result.error!.details!.approval_id), (approval) => ({ ...approval, expires_at: new Date(Date.now() - 1000).toISOString() }));
      const { text, result } = await call.again();
      expect(result.status).toBe('expired');
      expectNativeWording(c.tool, text, [`Nobody approved this call of ${c.label}`, `under a new ${c.callId}`]);
    });

    it.each(TOOLS)('$tool: the tool\'s timeout, its exec-server stalled', async (c) => {
      const { text, result } = await send(c, 'stall', c.harmless('stalled'));
      expect(result.status).toBe('timeout');
      expectNativeWording(c.tool, text, [`Tool ${c.label} timed out after 200 ms`]);
    });

    it('str_replace_based_edit_tool: a view\'s timeout names its command', async () => {
      const { text, result } = await claude('anstall', 'str_replace_based_edit_tool', { command: 'view', path: 'notes.txt' });
      expect(result.status).toBe('timeout');
      expectNativeWording('str_replace_based_edit_tool', text, ['Tool `str_replace_based_edit_tool` (command "view") timed out']);
    });

    it.each(TOOLS)('$tool: the same call again while it runs (in_progress), then its exec-server dropping it', async (c) => {
      const ids = fresh(c);
      const arrived = stall.nextRequest();
      const first = send(c, 'wait', c.harmless(ids.v), ids);
      await arrived;
      const again = await send(c, 'wait', c.harmless(ids.v), ids);
      expect(again.result.status).toBe('in_progress');
      expectNativeWording(c.tool, again.text, [`This call of ${c.label} is already running`]);
      stall.release();
      // Dropped mid-run: a side effect may have started (indeterminate) or failed.
      const dropped = await first;
      expect(dropped.result.is_error).toBe(true);
      expectNativeWording(c.tool, dropped.text);
    });

    it.each(TOOLS)('$tool: the same id with other input (conflict)', async (c) => {
      const ids = fresh(c);
      expect((await send(c, '', c.harmless(`${ids.v}a`), ids)).result.status).toBe('ok');
      const { text, result } = await send(c, '', c.harmless(`${ids.v}b`), ids);
      expect(result.status).toBe('conflict');
      expectNativeWording(c.tool, text, [`A call of ${c.label}`, `different ${c.input}`, `Use a new ${c.callId}`]);
    });

    it.each(TOOLS)('$tool: the store unreachable (a granted call claims, a reviewed one parks)', async (c) => {
      const { text, result } = await send(c, 'broken', c.harmless('unstored'));
      expect(result.status).toBe('unavailable');
      expectNativeWording(c.tool, text, [`Tool ${c.label} was not run`, 'the memory store is unavailable']);
    });

    it.each(TOOLS)('$tool: the exec-server down', async (c) => {
      const { text, result } = await send(c, 'down', c.harmless('down'));
      expect(result.status).toBe('unavailable');
      expectNativeWording(c.tool, text);
    });

    /** Arguments the tenant's schema refuses: each problem names the parameter the model wrote, or says no input can fix it. */
    const invalid: Array<[NativeTool, string, unknown, string[]]> = [
      ['str_replace_based_edit_tool', 'anstrict', { command: 'create', path: 'x.txt', file_text: 'more than ten' }, [
        'Invalid input for tool `str_replace_based_edit_tool` (command "create"):', '- `path` must match the pattern /^src//, got string "x.txt"', '- `file_text` must be at most 10 characters long', 'Fix the input and call the tool again.',
      ]],
      ['str_replace_based_edit_tool', 'anstrict', { command: 'view', path: 'notes.txt', view_range: [200, 300] }, ['- `view_range[0]` must be <= 100, got 200', '- `view_range` must be <= 50, got 101']],
      ['str_replace_based_edit_tool', 'anstrict', { command: 'insert', path: 'src/a.txt', insert_line: 9, insert_text: 'x' }, ['(command "insert")', '- `insert_line` must be <= 3, got 9']],
      ['str_replace_based_edit_tool', 'anstrict', { command: 'str_replace', path: 'notes.txt', old_str: 'one two', new_str: '1' }, [
        '- `old_str` must be at most 5 characters long', '- 1 problem with values the gateway sets by itself to run `str_replace_based_edit_tool` (command "str_replace"), which no input can change',
      ]],
      ['bash', 'anstrict', { command: 'echo a command longer than twenty' }, ['Invalid input for tool `bash`:', '- `command` must be at most 20 characters long', '- 1 problem with values the gateway sets by itself to run `bash`', 'Fix the input']],
      ['apply_patch', 'oastrict', { type: 'create_file', path: 'gen/long.txt', diff: '+a line long enough to take the patch past sixty characters\n' }, [
        'Invalid operation for tool `apply_patch`:', '- `operation` must be at most 60 characters long', 'Fix the operation',
      ]],
      ['shell', 'oa', { commands: [''] }, ['Invalid commands for tool `shell`:', '- `commands[0]` must be at least 1 character long', 'Fix the commands']],
      ['shell', 'oa', { commands: ['echo first', ''] }, ['- `commands[1]` must be at least 1 character long']],
      ['shell', 'oa', { commands: ['echo x'], timeout_ms: 900_000 }, ['- `timeout_ms` must be <= 600000, got 900000']],
    ];
    it.each(invalid)('%s: invalid arguments (%#)', async (tool, tenant, input, suggests) => {
      const { text, result } = await SEND[tool](tenant, input, `invalid${++made}`, `${tool === 'apply_patch' || tool === 'shell' ? 'call' : 'toolu'}_i${made}`);
      expect(result.status).toBe('invalid_arguments');
      expectNativeWording(tool, text, suggests);
    });

    it('bash: only a value the gateway set is refused, so no fix is offered', async () => {
      const { text, result } = await claude('anstrict', 'bash', { command: 'ls' });
      expect(result.status).toBe('invalid_arguments');
      expect(text).toBe(
        'Invalid input for tool `bash`:\n- 1 problem with values the gateway sets by itself to run `bash`, which no input can change: tell the user that `bash` cannot do this here.',
      );
    });

    it('str_replace_based_edit_tool: a command whose tool the tenant lacks (the openai profile has no edit_file)', async () => {
      const { text, result } = await claude('oa', 'str_replace_based_edit_tool', { command: 'str_replace', path: 'notes.txt', old_str: 'one', new_str: '1' });
      expect(result.status).toBe('unknown_tool');
      expectNativeWording('str_replace_based_edit_tool', text, ['"str_replace" command of str_replace_based_edit_tool is not available here']);
    });

    it('bash and a shell_call: a command whose process died mid-run, settled indeterminate when sent again (library pipeline)', async () => {
      const [bash] = planAnthropicNativeCalls([{ call_id: 'toolu_died', name: 'bash', arguments: { command: 'make' } }], { isRegistered: (name) => name === 'shell' });
      const [command] = await responsesFormat.readCalls({ output: [{ type: 'shell_call', call_id: 'call_died', action: { commands: ['make'] } }] }, 'died');
      for (const [tool, call] of [['bash', bash!.call], ['shell', command!]] as const) {
        // Two processes on one store: the first dies while its command runs (nothing it does is stored after that), then a restarted one.
        const store = new MemoryStore();
        const dying = mortalStore(store);
        const environment = new MemoryEnvironment();
        environment.script = () => (dying.die(), new Promise(() => {}));
        const [first, restarted] = [dying.store, store].map((view) => {
          const router = new ToolRouter(undefined, 5000, { policy: { execute: 'grant' }, store: view, leaseGraceMs: 50 });
          router.register(shellTool(environment));
          return router;
        });
        const context = { tenant: 'acme', principal: 'agent', thread_id: `died-${tool}` };
        await first!.execute(call, context, 100);
        // Past the call's deadline (its timeout and the lease grace), the restarted process settles it.
        await new Promise((resolve) => setTimeout(resolve, 300));
        const settled = await restarted!.execute(call, context, 100);
        expect(settled.status).toBe('indeterminate');
        expectNativeWording(tool, settled.content, [`This call of \`${tool}\` started`, `under a new ${tool === 'bash' ? 'tool_use id' : 'call_id'}`]);
      }
    });

    it('bash: review without approvals (library use, no store)', async () => {
      const router = new ToolRouter(undefined, 5000, { governor: policyGovernor({ execute: 'review', rules: [{ tool: 'shell', action: 'review', description: 'shell needs a human' }] }) });
      router.register(shellTool(new MemoryEnvironment()));
      const [planned] = planAnthropicNativeCalls([{ call_id: 'toolu_lib', name: 'bash', arguments: { command: 'make' } }], { isRegistered: (name) => router.hasTool(name) });
      const result = await router.execute(planned!.call, { tenant: 'acme', principal: 'claude-agent', thread_id: 'lib' });
      expect(result.status).toBe('denied');
      const [message] = toAnthropicToolResultMessages([result]);
      expectNativeWording('bash', (message!.content as Array<{ content: string }>)[0]!.content, ['Tool `bash` needs human approval (approval required: bash needs a human)']);
    });
  });
});
