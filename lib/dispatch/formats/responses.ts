import type { ToolCall } from '../call.ts';
import { CallFormatError, asRecord, requireArray, requireString, type ProviderFormat } from './provider-format.ts';
import { patchFromOperation } from './responses-patch.ts';
import { writeResponsesItems } from './responses-output.ts';

/** A shell_call's commands become one call each; more than this in one item is refused. */
export const MAX_SHELL_COMMANDS = 32;
/** Room left in a call id (at most 200 characters) for a command's ":<index>" suffix (index at most 31). */
const MAX_SHELL_CALL_ID = 197;

/**
 * Responses API: the items of a response's `output` (or of `response.output`, the whole response
 * object) in; the items to append to the next request's `input` out. Every `function_call`,
 * `apply_patch_call` and `shell_call` runs; other items (messages, reasoning, hosted tools) are
 * ignored. A native item runs as a call of the tenant's own tool it stands for, so it gets the
 * same tier, policy, approval, idempotency and audit:
 * - `apply_patch_call` → one `apply_patch` call with the operation as patch text, id `call_id`;
 * - `shell_call` → one `shell` call per command, in order, command i with id `<call_id>:<i>`
 *   (stable, so a retried item replays), `timeout_ms` passed on.
 */
export const responsesFormat: ProviderFormat = {
  readCalls(body) {
    const source = body.output ?? (body.response as Record<string, unknown> | undefined)?.output;
    const calls: ToolCall[] = [];
    for (const [i, value] of requireArray(source, 'output (or response.output)').entries()) {
      const where = `output[${i}]`;
      const item = asRecord(value, where);
      if (item.type === 'function_call') calls.push(functionCall(item, where));
      else if (item.type === 'apply_patch_call') calls.push(applyPatchCall(item, where));
      else if (item.type === 'shell_call') calls.push(...shellCalls(item, where));
    }
    return calls;
  },
  writeResults: writeResponsesItems,
};

function functionCall(item: Record<string, unknown>, where: string): ToolCall {
  return { call_id: requireString(item.call_id, `${where}.call_id`), name: requireString(item.name, `${where}.name`), arguments: item.arguments };
}

function applyPatchCall(item: Record<string, unknown>, where: string): ToolCall {
  const call_id = requireString(item.call_id, `${where}.call_id`);
  const patch = patchFromOperation(item.operation, `${where}.operation`);
  // The patch is made from the operation the model wrote.
  return { call_id, name: 'apply_patch', arguments: { patch }, native: { type: 'apply_patch_call', tool: 'apply_patch', parameters: { patch: 'operation' }, call_id } };
}

function shellCalls(item: Record<string, unknown>, where: string): ToolCall[] {
  const call_id = requireString(item.call_id, `${where}.call_id`);
  if (call_id.length > MAX_SHELL_CALL_ID) throw new CallFormatError(`${where}.call_id must be at most ${MAX_SHELL_CALL_ID} characters (its commands run as <call_id>:<index>)`);
  const action = asRecord(item.action, `${where}.action`);
  const commands = requireArray(action.commands, `${where}.action.commands`);
  if (commands.length === 0 || commands.length > MAX_SHELL_COMMANDS) {
    throw new CallFormatError(`${where}.action.commands must hold 1-${MAX_SHELL_COMMANDS} commands (got ${commands.length})`);
  }
  const timeout_ms = optionalNumber(action.timeout_ms, `${where}.action.timeout_ms`);
  const max_output_length = optionalNumber(action.max_output_length, `${where}.action.max_output_length`);
  if (max_output_length !== undefined && !(Number.isSafeInteger(max_output_length) && max_output_length >= 0)) {
    throw new CallFormatError(`${where}.action.max_output_length must be a whole number of characters, 0 or more`);
  }
  return commands.map((command, i) => {
    if (typeof command !== 'string') throw new CallFormatError(`${where}.action.commands[${i}] must be a string`);
    return {
      call_id: `${call_id}:${i}`,
      name: 'shell',
      arguments: timeout_ms === undefined ? { command } : { command, timeout_ms },
      native: { type: 'shell_call', tool: 'shell', parameters: { command: `commands[${i}]`, timeout_ms: 'timeout_ms' }, call_id, ...(max_output_length === undefined ? {} : { max_output_length }) },
    };
  });
}

/** A number, or absent (undefined or null, as the API sends an unset limit). */
function optionalNumber(value: unknown, what: string): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value)) throw new CallFormatError(`${what} must be a number or null`);
  return value;
}
