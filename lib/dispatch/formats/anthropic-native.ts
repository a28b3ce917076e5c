import { BASH_NAME, BASH_TOOL, TEXT_EDITOR_NAME, TEXT_EDITOR_TOOLS, type NativeToolContext } from '../../registry/formats/anthropic-native.ts';
import type { JsonObject } from '../../registry/json.ts';
import { isJsonObject } from '../../registry/json.ts';
import type { ToolCall, ToolResult } from '../call.ts';
import { clippedJson } from '../../validation/messages.ts';

/**
 * Calls of Anthropic's native client tools become calls of the tenant's own coding tools, so
 * they go through the same pipeline (lookup, validation, scopes, policy, approval, idempotency
 * under the tool_use id, audit) as the function tools would:
 *   text editor view → read_file, create → write_file, str_replace → edit_file,
 *   insert → write_file with insert_line; bash → shell.
 * A call the translation cannot make sense of is answered at once (invalid_arguments), in the
 * text editor's terms, as is a text editor command whose tool the tenant lacks while it has the
 * others (unknown_tool); `bash` restart runs nothing. A tenant tool named like a native tool is
 * the tenant's own: its calls pass unchanged, as do calls of a native tool none of whose tools
 * the tenant has (they end as unknown_tool through the pipeline).
 * A call answered at once keeps the call as sent, so the pipeline can record it (events, audit).
 * A translated call keeps the native tool's name, command and parameter names (ToolCall.native),
 * so that what the coding tool answers (lib/tools/coding/claude-vocabulary.ts) and what the
 * gateway says of the call (lib/dispatch/call-naming.ts) name the tool and parameters Claude holds.
 */
export type PlannedCall = { call: ToolCall; result?: ToolResult };

/** Commands run in a fresh shell each; Claude cannot pass shell's timeout_ms, so bash gets a build-sized one. */
export const BASH_TIMEOUT_MS = 120_000;

export const BASH_RESTART_MESSAGE =
  'The bash session was restarted. (Each command already runs in a fresh shell in the working directory: ' +
  'no working directory change, variable or background process carries over from one command to the next.)';

class NativeInputError extends Error {}

export function planAnthropicNativeCalls(calls: ToolCall[], tools: NativeToolContext): PlannedCall[] {
  return calls.map((call) => planCall(call, tools));
}

function planCall(call: ToolCall, tools: NativeToolContext): PlannedCall {
  const native = call.name === TEXT_EDITOR_NAME || call.name === BASH_NAME;
  if (!native || tools.isRegistered(call.name)) return { call };
  // A tenant without the tools behind it (no execution environment) gets unknown_tool, as for any name it lacks.
  const targets: readonly string[] = call.name === BASH_NAME ? [BASH_TOOL] : Object.values(TEXT_EDITOR_TOOLS);
  if (!targets.some((name) => tools.isRegistered(name))) return { call };
  try {
    const input = asInput(call.arguments, call.name);
    if (call.name === BASH_NAME) return planBash(call, input, tools);
    const translated = textEditorCall(input);
    if (!tools.isRegistered(translated.name)) return { call, result: immediateResult(call, 'unknown_tool', commandUnavailable(translated.command)) };
    return { call: runsAs(call, translated) };
  } catch (error) {
    if (!(error instanceof NativeInputError)) throw error;
    return { call, result: immediateResult(call, 'invalid_arguments', error.message) };
  }
}

/** The tenant has some of the tools behind the text editor, not the one this command runs as. */
const commandUnavailable = (command: string) =>
  `The "${command}" command of ${TEXT_EDITOR_NAME} is not available here: this tenant has no tool for it. Its other commands may still work.`;

function planBash(call: ToolCall, input: JsonObject, tools: NativeToolContext): PlannedCall {
  if (input.restart === true) return { call, result: immediateResult(call, 'ok', BASH_RESTART_MESSAGE) };
  if (typeof input.command !== 'string' || input.command.trim() === '') {
    throw new NativeInputError('bash needs either `command` (the command to run, a non-empty string) or `restart: true`.');
  }
  if (!tools.isRegistered(BASH_TOOL)) return { call };
  // timeout_ms is the gateway's own: bash has no parameter for it.
  return { call: runsAs(call, { name: BASH_TOOL, arguments: { command: input.command, timeout_ms: BASH_TIMEOUT_MS }, parameters: { command: 'command' } }) };
}

/** A native call as the call of a tenant's tool it runs as: its arguments, and the model's name for each (a text editor's command too). */
interface Translated {
  name: string;
  arguments: JsonObject;
  parameters: Record<string, string>;
  command?: string;
}

/** The native call as a call of the tool it runs as, remembering the native tool, command and parameters so that messages name them. */
function runsAs(call: ToolCall, translated: Translated): ToolCall {
  const { name, arguments: args, parameters, command } = translated;
  return { call_id: call.call_id, name, arguments: args, native: { type: 'tool_use', tool: call.name, ...(command ? { command } : {}), parameters, call_id: call.call_id } };
}

type EditorCommand = keyof typeof TEXT_EDITOR_TOOLS;
const COMMANDS: readonly unknown[] = Object.keys(TEXT_EDITOR_TOOLS);
const isCommand = (value: unknown): value is EditorCommand => COMMANDS.includes(value);

function textEditorCall(input: JsonObject): Translated & { command: EditorCommand } {
  const command = input.command;
  if (command === 'undo_edit') {
    throw new NativeInputError(
      `undo_edit is not a command of text_editor_20250728, and toolgate keeps no edit history. To change the text back, call ${TEXT_EDITOR_NAME} with command "str_replace".`,
    );
  }
  if (!isCommand(command)) {
    throw new NativeInputError(`Unknown command ${clippedJson(command)}. The commands of ${TEXT_EDITOR_NAME} are view, create, str_replace and insert.`);
  }
  const path = requireString(input, 'path', command);
  const runs = (args: JsonObject, parameters: Record<string, string>) => ({ name: TEXT_EDITOR_TOOLS[command], arguments: { file_path: path, ...args }, parameters: { file_path: 'path', ...parameters }, command });
  switch (command) {
    case 'view':
      // offset is view_range's start; limit the number of lines it covers.
      return runs(viewRange(input.view_range), { offset: 'view_range[0]', limit: 'view_range' });
    case 'create':
      return runs({ content: requireString(input, 'file_text', command, true) }, { content: 'file_text' });
    case 'str_replace': {
      const newStr = input.new_str === undefined ? '' : requireString(input, 'new_str', command, true);
      return runs({ old_string: requireString(input, 'old_str', command, true), new_string: newStr }, { old_string: 'old_str', new_string: 'new_str' });
    }
    default:
      return runs({ insert_line: insertLine(input.insert_line), content: insertText(input) }, { insert_line: 'insert_line', content: input.insert_text !== undefined ? 'insert_text' : 'new_str' });
  }
}

/** view_range [start, end], 1-based and inclusive; end -1 reads to the end of the file. */
function viewRange(range: unknown): { offset?: number; limit?: number } {
  if (range === undefined || range === null) return {};
  const [start, end] = Array.isArray(range) ? range : [];
  const valid = Array.isArray(range) && range.length === 2 && Number.isSafeInteger(start) && Number.isSafeInteger(end) && start >= 1 && (end === -1 || end >= start);
  if (!valid) {
    throw new NativeInputError(
      `view_range must be two line numbers [start, end] with 1 <= start <= end, or end -1 for the end of the file (got ${clippedJson(range)}).`,
    );
  }
  return end === -1 ? { offset: start } : { offset: start, limit: end - start + 1 };
}

function insertLine(value: unknown): number {
  if (!Number.isSafeInteger(value) || (value as number) < 0) {
    throw new NativeInputError(`insert_line must be a line number: 0 inserts at the top, N inserts after line N (got ${clippedJson(value)}).`);
  }
  return value as number;
}

/** text_editor_20250728 names it insert_text; earlier versions named it new_str. */
function insertText(input: JsonObject): string {
  return input.insert_text !== undefined ? requireString(input, 'insert_text', 'insert', true) : requireString(input, 'new_str', 'insert', true, 'insert_text');
}

function requireString(input: JsonObject, field: string, command: string, emptyAllowed = false, shownAs = field): string {
  const value = input[field];
  if (typeof value !== 'string' || (!emptyAllowed && value === '')) {
    throw new NativeInputError(`the ${JSON.stringify(command)} command needs \`${shownAs}\` (a ${emptyAllowed ? '' : 'non-empty '}string).`);
  }
  return value;
}

function asInput(value: unknown, tool: string): JsonObject {
  let input = value;
  if (typeof value === 'string') {
    try {
      input = JSON.parse(value);
    } catch {
      throw new NativeInputError(`The input of ${tool} must be a JSON object.`);
    }
  }
  if (!isJsonObject(input)) throw new NativeInputError(`The input of ${tool} must be a JSON object.`);
  return input;
}

function immediateResult(call: ToolCall, status: 'ok' | 'invalid_arguments' | 'unknown_tool', content: string): ToolResult {
  const base = { call_id: call.call_id, name: call.name, content, truncated: false, duration_ms: 0 };
  if (status === 'ok') return { ...base, status, is_error: false };
  return { ...base, status, is_error: true, error: { code: status, message: content } };
}
