import { describe, expect, it } from 'vitest';
import type { ToolCall, ToolResult } from '../../lib/dispatch/call.ts';
import { PROVIDER_FORMATS } from '../../lib/dispatch/formats/index.ts';
import { MAX_SHELL_COMMANDS } from '../../lib/dispatch/formats/responses.ts';
import { NOT_RUN_EXIT_CODE } from '../../lib/dispatch/formats/responses-output.ts';
import { formatShellResult } from '../../lib/tools/coding/shell-output.ts';
import { applyPatchCall, FUNCTION_CALL_OUTPUT, shellCall } from '../fixtures/responses-output.ts';

const responses = PROVIDER_FORMATS.responses;
const read = async (output: unknown) => responses.readCalls({ output }, 'thread');

const ok = (call_id: string, name: string, content: string): ToolResult => ({ call_id, name, status: 'ok', is_error: false, content, truncated: false, duration_ms: 1 });
const failed = (call_id: string, name: string, status: ToolResult['status'], content: string): ToolResult => ({ ...ok(call_id, name, content), status, is_error: true });
const shellText = (exit_code: number | null, stdout: string, stderr: string, more: { timed_out?: boolean; signal?: string } = {}) =>
  formatShellResult({ exit_code, signal: more.signal ?? null, stdout, stderr, timed_out: more.timed_out ?? false, duration_ms: 5, output_capped: false }, 1000, 600_000);

describe('Responses items in', () => {
  it('reads function_call items from output or response.output and ignores the other items', async () => {
    const expected = [
      { call_id: 'call_echo_1', name: 'echo', arguments: '{"text":"hello from the Responses API"}' },
      { call_id: 'call_read_1', name: 'read_file', arguments: '{"file_path":"notes.txt"}' },
    ];
    expect(await read(FUNCTION_CALL_OUTPUT)).toEqual(expected);
    expect(await responses.readCalls({ response: { object: 'response', id: 'resp_1', output: FUNCTION_CALL_OUTPUT } }, 't')).toEqual(expected);
    expect(await read([{ type: 'message', role: 'assistant', content: [] }, { type: 'web_search_call', id: 'ws', status: 'completed' }])).toEqual([]);
  });

  it('turns each apply_patch_call operation into one apply_patch call with the equivalent patch', async () => {
    const calls = await read([
      applyPatchCall('p1', { type: 'create_file', path: 'docs/new.md', diff: '+# Title\n+\n+Body\n+' }),
      applyPatchCall('p2', { type: 'update_file', path: 'src/app.ts', diff: '@@ function main\n const a = 1;\n-const b = 2;\n+const b = 3;\n' }),
      applyPatchCall('p3', { type: 'delete_file', path: 'old.txt' }),
    ]);
    expect(calls).toEqual([
      { call_id: 'p1', name: 'apply_patch', arguments: { patch: '*** Begin Patch\n*** Add File: docs/new.md\n+# Title\n+\n+Body\n*** End Patch' }, native: { type: 'apply_patch_call', tool: 'apply_patch', parameters: { patch: 'operation' }, call_id: 'p1' } },
      {
        call_id: 'p2',
        name: 'apply_patch',
        arguments: { patch: '*** Begin Patch\n*** Update File: src/app.ts\n@@ function main\n const a = 1;\n-const b = 2;\n+const b = 3;\n*** End Patch' },
        native: { type: 'apply_patch_call', tool: 'apply_patch', parameters: { patch: 'operation' }, call_id: 'p2' },
      },
      { call_id: 'p3', name: 'apply_patch', arguments: { patch: '*** Begin Patch\n*** Delete File: old.txt\n*** End Patch' }, native: { type: 'apply_patch_call', tool: 'apply_patch', parameters: { patch: 'operation' }, call_id: 'p3' } },
    ]);
  });

  it('a create_file diff without the final "+" line, with CRLF, or empty still makes one Add File', async () => {
    const [plain, crlf, empty] = await read([
      applyPatchCall('a', { type: 'create_file', path: 'a.txt', diff: '+one\n+two' }),
      applyPatchCall('b', { type: 'create_file', path: 'b.txt', diff: '+one\r\n+two\r\n+' }),
      applyPatchCall('c', { type: 'create_file', path: 'c.txt', diff: '' }),
    ]);
    expect(plain.arguments).toEqual({ patch: '*** Begin Patch\n*** Add File: a.txt\n+one\n+two\n*** End Patch' });
    expect(crlf.arguments).toEqual({ patch: '*** Begin Patch\n*** Add File: b.txt\n+one\n+two\n*** End Patch' });
    expect(empty.arguments).toEqual({ patch: '*** Begin Patch\n*** Add File: c.txt\n*** End Patch' });
  });

  it('an update diff may add, remove or keep lines that look like patch markers (a file about patches)', async () => {
    const diff = '@@\n *** Begin Patch\n-*** Add File: a.txt\n+*** Add File: b.txt\n *** End Patch\n*** End of File';
    const [call] = await read([applyPatchCall('doc', { type: 'update_file', path: 'docs/patches.md', diff })]);
    expect(call.arguments).toEqual({ patch: `*** Begin Patch\n*** Update File: docs/patches.md\n${diff}\n*** End Patch` });
  });

  it('turns a shell_call into one shell call per command, ids <call_id>:<index>, timeout_ms passed on', async () => {
    const calls = await read([shellCall('sh_1', ['ls', 'git status'], { timeout_ms: 5000, max_output_length: 200 }), shellCall('sh_2', ['pwd'])]);
    expect(calls).toEqual([
      { call_id: 'sh_1:0', name: 'shell', arguments: { command: 'ls', timeout_ms: 5000 }, native: { type: 'shell_call', tool: 'shell', parameters: { command: 'commands[0]', timeout_ms: 'timeout_ms' }, call_id: 'sh_1', max_output_length: 200 } },
      { call_id: 'sh_1:1', name: 'shell', arguments: { command: 'git status', timeout_ms: 5000 }, native: { type: 'shell_call', tool: 'shell', parameters: { command: 'commands[1]', timeout_ms: 'timeout_ms' }, call_id: 'sh_1', max_output_length: 200 } },
      { call_id: 'sh_2:0', name: 'shell', arguments: { command: 'pwd' }, native: { type: 'shell_call', tool: 'shell', parameters: { command: 'commands[0]', timeout_ms: 'timeout_ms' }, call_id: 'sh_2' } },
    ]);
    // The longest item id still gives command ids a call id may have (200 characters).
    const longest = await read([shellCall('x'.repeat(197), Array(MAX_SHELL_COMMANDS).fill('ls'))]);
    expect(longest.map((c) => c.call_id.length)).toEqual([...Array(10).fill(199), ...Array(MAX_SHELL_COMMANDS - 10).fill(200)]);
  });

  it('refuses malformed items with a message naming the field', async () => {
    const shell = (action: unknown, call_id: unknown = 's') => [{ type: 'shell_call', call_id, action }];
    const patch = (operation: unknown) => [{ type: 'apply_patch_call', call_id: 'p', operation }];
    const cases: Array<[unknown, string]> = [
      [undefined, 'output (or response.output) must be an array'],
      [['not an item'], 'output[0] must be an object'],
      [[{ type: 'function_call', name: 'echo', arguments: '{}' }], 'output[0].call_id must be a non-empty string'],
      [[{ type: 'function_call', call_id: 'c', arguments: '{}' }], 'output[0].name must be a non-empty string'],
      [patch(undefined), 'output[0].operation must be an object'],
      [patch({ type: 'rename_file', path: 'a' }), 'output[0].operation.type must be create_file, update_file or delete_file (got "rename_file")'],
      [patch({ type: 'update_file', path: 'a' }), 'output[0].operation.diff must be a string'],
      [patch({ type: 'delete_file', path: 'a.txt\n*** Delete File: b.txt' }), 'output[0].operation.path must be one line (it holds a line break)'],
      [patch({ type: 'create_file', path: 'a.txt', diff: '+x\n*** Delete File: important.txt' }), 'output[0].operation.diff line 2 reads as the patch marker "*** Delete File:": a diff holds one file\'s hunk lines only'],
      [patch({ type: 'create_file', path: 'a.txt', diff: '+x\n  *** Update File: b.txt' }), 'output[0].operation.diff line 2 reads as the patch marker "*** Update File:": a diff holds one file\'s hunk lines only'],
      [patch({ type: 'update_file', path: 'a.txt', diff: '@@\n-x\n+y\n*** End Patch\n*** Begin Patch' }), 'output[0].operation.diff line 4 reads as the patch marker "*** End Patch": a diff holds one file\'s hunk lines only'],
      [shell(undefined), 'output[0].action must be an object'],
      [shell({ commands: 'ls' }), 'output[0].action.commands must be an array'],
      [shell({ commands: [] }), `output[0].action.commands must hold 1-${MAX_SHELL_COMMANDS} commands (got 0)`],
      [shell({ commands: Array(100_000).fill('ls') }), `output[0].action.commands must hold 1-${MAX_SHELL_COMMANDS} commands (got 100000)`],
      [shell({ commands: ['ls', 7] }), 'output[0].action.commands[1] must be a string'],
      [shell({ commands: ['ls'], timeout_ms: '10s' }), 'output[0].action.timeout_ms must be a number or null'],
      [shell({ commands: ['ls'], max_output_length: -1 }), 'output[0].action.max_output_length must be a whole number of characters, 0 or more'],
      [shell({ commands: ['ls'] }, 'x'.repeat(198)), 'output[0].call_id must be at most 197 characters (its commands run as <call_id>:<index>)'],
    ];
    for (const [output, message] of cases) await expect(read(output), message).rejects.toThrow(message);
  });
});

describe('Responses items out', () => {
  it('function_call_output carries the output text or the error message', () => {
    const calls: ToolCall[] = [{ call_id: 'a', name: 'echo' }, { call_id: 'b', name: 'nope' }];
    expect(responses.writeResults([ok('a', 'echo', 'hi'), failed('b', 'nope', 'unknown_tool', 'Unknown tool `nope`.')], calls)).toEqual([
      { type: 'function_call_output', call_id: 'a', output: 'hi' },
      { type: 'function_call_output', call_id: 'b', output: 'Unknown tool `nope`.' },
    ]);
  });

  it('apply_patch_call_output is completed, or failed with the message for any other status', () => {
    const native = (call_id: string): ToolCall => ({ call_id, name: 'apply_patch', native: { type: 'apply_patch_call', tool: 'apply_patch', parameters: { patch: 'operation' }, call_id } });
    const results = [
      ok('p1', 'apply_patch', 'Success. Updated the following files:\nA a.txt\n'),
      failed('p2', 'apply_patch', 'error', 'Failed to find expected lines in a.txt'),
      failed('p3', 'apply_patch', 'pending_approval', 'Tool `apply_patch` needs a human\'s approval before it runs.'),
    ];
    expect(responses.writeResults(results, [native('p1'), native('p2'), native('p3')])).toEqual([
      { type: 'apply_patch_call_output', call_id: 'p1', status: 'completed', output: 'Success. Updated the following files:\nA a.txt\n' },
      { type: 'apply_patch_call_output', call_id: 'p2', status: 'failed', output: 'Failed to find expected lines in a.txt' },
      { type: 'apply_patch_call_output', call_id: 'p3', status: 'failed', output: 'Tool `apply_patch` needs a human\'s approval before it runs.' },
    ]);
  });

  it('one shell_call_output per shell_call: stdout, stderr and exit or timeout per command', async () => {
    const calls = await read([shellCall('s', ['a', 'b', 'c', 'd', 'e'])]);
    const results = [
      ok('s:0', 'shell', shellText(0, 'out\n', '')),
      ok('s:1', 'shell', shellText(2, '', 'no such file\n')),
      ok('s:2', 'shell', shellText(null, 'partial', '', { timed_out: true, signal: 'SIGTERM' })),
      ok('s:3', 'shell', shellText(null, '', '', { signal: 'SIGKILL' })),
      failed('s:4', 'shell', 'timeout', 'Tool `shell` timed out after 610000 ms and was cancelled.'),
    ];
    expect(responses.writeResults(results, calls)).toEqual([
      {
        type: 'shell_call_output',
        call_id: 's',
        max_output_length: null,
        output: [
          { stdout: 'out', stderr: '', outcome: { type: 'exit', exit_code: 0 } },
          { stdout: '', stderr: 'no such file', outcome: { type: 'exit', exit_code: 2 } },
          { stdout: 'partial', stderr: '', outcome: { type: 'timeout' } },
          { stdout: '', stderr: '', outcome: { type: 'exit', exit_code: 137 } },
          { stdout: '', stderr: 'Tool `shell` timed out after 610000 ms and was cancelled.', outcome: { type: 'timeout' } },
        ],
      },
    ]);
  });

  it('a command that did not run answers exit 126 with the reason, and says the rest were not run', async () => {
    const calls = await read([shellCall('s', ['ls', 'rm -rf build', 'make'])]);
    const parked = 'Tool `shell` needs a human\'s approval before it runs (approval apr_1). It has not run yet.';
    const results = [ok('s:0', 'shell', shellText(0, 'build\n', '')), failed('s:1', 'shell', 'pending_approval', parked)];
    const [item] = responses.writeResults(results, calls) as Array<{ output: unknown[] }>;
    expect(item.output).toEqual([
      { stdout: 'build', stderr: '', outcome: { type: 'exit', exit_code: 0 } },
      { stdout: '', stderr: `${parked}\n[toolgate: the 1 command(s) after this one in the shell_call were not run.]`, outcome: { type: 'exit', exit_code: NOT_RUN_EXIT_CODE } },
    ]);
  });

  it('max_output_length bounds each command\'s stdout and stderr together, keeping both ends', async () => {
    const calls = await read([shellCall('s', ['big', 'small', 'tight'], { max_output_length: 400 })]);
    const stdout = `START${'x'.repeat(5000)}END`;
    const stderr = `ERRSTART${'e'.repeat(3000)}ERREND`;
    const results = [ok('s:0', 'shell', shellText(0, stdout, stderr)), ok('s:1', 'shell', shellText(0, 'tiny', 'err')), ok('s:2', 'shell', shellText(0, stdout, 'short error'))];
    const [item] = responses.writeResults(results, calls) as Array<{ output: Array<{ stdout: string; stderr: string }>; max_output_length: number }>;
    expect(item.max_output_length).toBe(400);
    const [big, small, tight] = item.output;
    expect(big.stdout.length + big.stderr.length).toBe(400);
    expect(big.stdout).toMatch(/^STARTx+\n\[\.\.\. cut from 5008 characters: max_output_length is 400 \.\.\.\]\nx+END$/);
    expect(big.stderr).toMatch(/^ERRSTARTe+\n\[\.\.\. cut from 3014 characters: max_output_length is 400 \.\.\.\]\ne+ERREND$/);
    expect(small).toEqual({ stdout: 'tiny', stderr: 'err', outcome: { type: 'exit', exit_code: 0 } });
    // A short stderr is kept whole; stdout gets the rest.
    expect(tight.stderr).toBe('short error');
    expect(tight.stdout.length).toBe(400 - 'short error'.length);
  });

  it("a tenant's own shell tool (another output layout) reads as stdout of a successful command", async () => {
    const calls = await read([shellCall('s', ['ls'])]);
    expect(responses.writeResults([ok('s:0', 'shell', 'a.txt\nb.txt')], calls)).toEqual([
      { type: 'shell_call_output', call_id: 's', max_output_length: null, output: [{ stdout: 'a.txt\nb.txt', stderr: '', outcome: { type: 'exit', exit_code: 0 } }] },
    ]);
  });

  it('keeps the order of the items: function, patch and shell outputs interleaved as called', async () => {
    const calls = await read([FUNCTION_CALL_OUTPUT[1], shellCall('s', ['ls']), applyPatchCall('p', { type: 'delete_file', path: 'x' })]);
    const results = [ok('call_echo_1', 'echo', 'hi'), ok('s:0', 'shell', shellText(0, '', '')), ok('p', 'apply_patch', 'Success.')];
    expect((responses.writeResults(results, calls) as Array<{ type: string }>).map((i) => i.type)).toEqual(['function_call_output', 'shell_call_output', 'apply_patch_call_output']);
  });
});
