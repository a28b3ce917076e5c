import { describe, expect, it } from 'vitest';
import { BASH_TIMEOUT_MS, planAnthropicNativeCalls } from '../../lib/dispatch/formats/anthropic-native.ts';

const registered = (...names: string[]) => ({ isRegistered: (name: string) => names.includes(name) });
const coding = registered('read_file', 'write_file', 'edit_file', 'shell', 'grep', 'glob');
const plan = (name: string, input: unknown, tools = coding) => planAnthropicNativeCalls([{ call_id: 'toolu_1', name, arguments: input }], tools)[0];
const editor = (input: unknown, tools = coding) => plan('str_replace_based_edit_tool', input, tools);

describe('planning Anthropic native calls as calls of the coding tools', () => {
  it('maps each text editor command and bash to the tool it runs as, keeping the tool_use id, the native tool, its command and its parameter names (for messages)', () => {
    const native = (command: string, parameters: Record<string, string>) => ({ type: 'tool_use', tool: 'str_replace_based_edit_tool', command, parameters: { file_path: 'path', ...parameters }, call_id: 'toolu_1' });
    const VIEW = native('view', { offset: 'view_range[0]', limit: 'view_range' });
    expect(editor({ command: 'view', path: 'a.txt' })).toEqual({ call: { call_id: 'toolu_1', name: 'read_file', arguments: { file_path: 'a.txt' }, native: VIEW } });
    expect(editor({ command: 'view', path: 'a.txt', view_range: [3, 7] })).toEqual({ call: { call_id: 'toolu_1', name: 'read_file', arguments: { file_path: 'a.txt', offset: 3, limit: 5 }, native: VIEW } });
    expect(editor({ command: 'view', path: 'a.txt', view_range: [3, -1] })).toEqual({ call: { call_id: 'toolu_1', name: 'read_file', arguments: { file_path: 'a.txt', offset: 3 }, native: VIEW } });
    expect(editor({ command: 'create', path: 'b.txt', file_text: '' })).toEqual({ call: { call_id: 'toolu_1', name: 'write_file', arguments: { file_path: 'b.txt', content: '' }, native: native('create', { content: 'file_text' }) } });
    expect(editor({ command: 'str_replace', path: 'b.txt', old_str: 'x', new_str: 'y' })).toEqual({
      call: { call_id: 'toolu_1', name: 'edit_file', arguments: { file_path: 'b.txt', old_string: 'x', new_string: 'y' }, native: native('str_replace', { old_string: 'old_str', new_string: 'new_str' }) },
    });
    expect(editor({ command: 'insert', path: 'b.txt', insert_line: 0, insert_text: 'top' })).toEqual({
      call: { call_id: 'toolu_1', name: 'write_file', arguments: { file_path: 'b.txt', insert_line: 0, content: 'top' }, native: native('insert', { insert_line: 'insert_line', content: 'insert_text' }) },
    });
    // Earlier text editor versions name the inserted text new_str.
    expect(editor({ command: 'insert', path: 'b.txt', insert_line: 0, new_str: 'top' })?.call.native?.parameters).toMatchObject({ content: 'new_str' });
    // bash has no timeout parameter: timeout_ms is the gateway's, and no message names it.
    expect(plan('bash', { command: 'ls' })).toEqual({
      call: { call_id: 'toolu_1', name: 'shell', arguments: { command: 'ls', timeout_ms: BASH_TIMEOUT_MS }, native: { type: 'tool_use', tool: 'bash', parameters: { command: 'command' }, call_id: 'toolu_1' } },
    });
  });

  it('answers malformed input at once as invalid_arguments, naming the field', () => {
    expect(editor('not json')).toMatchObject({ result: { status: 'invalid_arguments', is_error: true, content: 'The input of str_replace_based_edit_tool must be a JSON object.' } });
    expect(editor({ command: 'str_replace', path: 'b.txt' })).toMatchObject({ result: { content: 'the "str_replace" command needs `old_str` (a string).' } });
    expect(editor({ command: 'insert', path: 'b.txt', insert_line: 1.5, insert_text: 'x' })).toMatchObject({ result: { status: 'invalid_arguments' } });
    expect(editor({ command: 'insert', path: 'b.txt', insert_line: 1 })).toMatchObject({ result: { content: 'the "insert" command needs `insert_text` (a string).' } });
    expect(plan('bash', { command: '   ' })).toMatchObject({ result: { status: 'invalid_arguments' } });
  });

  it('leaves a tenant tool of the same name, other names, and tenants without the coding tools alone', () => {
    expect(plan('bash', { restart: true }, registered('bash', 'shell'))).toEqual({ call: { call_id: 'toolu_1', name: 'bash', arguments: { restart: true } } });
    expect(editor({ command: 'view', path: 'a' }, registered('str_replace_based_edit_tool', 'read_file'))).toMatchObject({ call: { name: 'str_replace_based_edit_tool' } });
    expect(plan('bash', { restart: true }, registered('echo'))).toMatchObject({ call: { name: 'bash' } });
    expect(editor({ command: 'view', path: 'a' }, registered('echo'))).toMatchObject({ call: { name: 'str_replace_based_edit_tool' } });
    // The openai profile has no edit_file: str_replace is answered unknown_tool, in the editor's terms, rather than running as something else.
    expect(editor({ command: 'str_replace', path: 'a', old_str: 'x' }, registered('read_file', 'write_file', 'apply_patch', 'shell'))).toMatchObject({
      call: { name: 'str_replace_based_edit_tool' },
      result: { status: 'unknown_tool', content: 'The "str_replace" command of str_replace_based_edit_tool is not available here: this tenant has no tool for it. Its other commands may still work.' },
    });
    expect(plan('read_file', { file_path: 'a' })).toEqual({ call: { call_id: 'toolu_1', name: 'read_file', arguments: { file_path: 'a' } } });
  });
});
