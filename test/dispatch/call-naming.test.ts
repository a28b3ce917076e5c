import { describe, expect, it } from 'vitest';
import type { ToolCall } from '../../lib/dispatch/call.ts';
import { approvalNaming, callNaming, genericNaming, nativeNamesOfApproval } from '../../lib/dispatch/call-naming.ts';
import type { Approval } from '../../lib/governance/approval.ts';
import type { JsonSchema } from '../../lib/registry/json.ts';
import { createAjvValidator } from '../../lib/validation/ajv-engine.ts';
import { createCfworkerValidator } from '../../lib/validation/cfworker-engine.ts';
import type { Violation } from '../../lib/validation/validator.ts';

const editorCall: ToolCall = {
  call_id: 'toolu_1',
  name: 'write_file',
  arguments: {},
  native: { type: 'tool_use', tool: 'str_replace_based_edit_tool', command: 'insert', parameters: { file_path: 'path', insert_line: 'insert_line', content: 'insert_text' }, call_id: 'toolu_1' },
};

const ENGINES = [createAjvValidator(), createCfworkerValidator()];

/** The violations each engine reports for `args` under `schema`. */
function violationsOf(schema: JsonSchema, args: unknown): Violation[][] {
  return ENGINES.map((engine) => {
    const outcome = engine.compile(schema)(args);
    if (outcome.valid) throw new Error('expected violations');
    return outcome.violations;
  });
}

describe('call naming', () => {
  it('a function call reads as it always has', () => {
    const naming = genericNaming('write_file');
    expect(naming).toMatchObject({ tool: '`write_file`', callId: 'call_id', input: 'arguments' });
    expect(naming.inText('write_file may not touch frozen/')).toBe('write_file may not touch frozen/');
  });

  it('a native call names the tool, its command, its id field and input, and the tools it stands for in free text', () => {
    const naming = callNaming(editorCall);
    expect(naming).toMatchObject({ tool: '`str_replace_based_edit_tool` (command "insert")', callId: 'tool_use id', input: 'input' });
    expect(naming.inText('read_file yes, write_file and edit_file no; write_files, glob untouched')).toBe(
      'str_replace_based_edit_tool yes, str_replace_based_edit_tool and str_replace_based_edit_tool no; write_files, glob untouched',
    );
    expect(callNaming({ name: 'shell', native: { type: 'tool_use', tool: 'bash', parameters: { command: 'command' }, call_id: 'x' } }).inText('policy rule 2 (shell) says deny')).toBe('policy rule 2 (bash) says deny');
  });

  it('a violation names the parameter the model wrote, below it too; one of a value the gateway set is left unnamed', () => {
    const schema = {
      type: 'object',
      properties: { file_path: { type: 'string', pattern: '^src/' }, content: { type: 'array', items: { type: 'string' } }, insert_line: { type: 'integer' }, mode: { type: 'string' } },
      required: ['mode'],
    };
    for (const violations of violationsOf(schema, { file_path: 'x', content: ['a', 2], insert_line: 1 })) {
      const named = violations.map((v) => callNaming(editorCall).violation(v));
      expect(named).toEqual(expect.arrayContaining(['`path` must match the pattern /^src//, got string "x"', '`insert_text[1]` must be a string, got number 2', undefined]));
    }
  });

  it('a property required because another is given: both by the model\'s names, or only the one it can give', () => {
    const schema = { type: 'object', dependentRequired: { content: ['insert_line'], mode: ['file_path'] } };
    for (const violations of violationsOf(schema, { content: 'x', mode: 'strict' })) {
      const named = violations.map((v) => callNaming(editorCall).violation(v));
      expect(named).toEqual(expect.arrayContaining(['`insert_line` is required when `insert_text` is given', '`path` is required here']));
    }
  });

  it('an approval keeps the native names, and names the parked call by them', () => {
    const kept = nativeNamesOfApproval(editorCall);
    expect(kept).toEqual({ native_tool: 'str_replace_based_edit_tool', native_command: 'insert', native_parameters: editorCall.native!.parameters });
    const approval = { tool: 'write_file', ...JSON.parse(JSON.stringify(kept)) } as Approval;
    expect(approvalNaming(approval).tool).toBe('`str_replace_based_edit_tool` (command "insert")');
    expect(approvalNaming({ tool: 'write_file' } as Approval).tool).toBe('`write_file`');
  });
});
