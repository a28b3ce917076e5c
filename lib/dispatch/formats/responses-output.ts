import { readShellResult } from '../../tools/coding/shell-output.ts';
import { groupByNativeItem, type CommandOutcome, type ToolCall, type ToolResult } from '../call.ts';
import { responsesFunctionCallOutput } from './responses-content.ts';
import type { ApplyPatchCallOutputItem, FunctionCallOutputItem, ResponsesOutputItem, ShellCallOutputItem, ShellCommandOutput } from './responses-items.ts';

/**
 * Exit code of a shell command that did not run (parked for approval, refused, invalid, or its
 * environment failed) or whose outcome is unknown: 126, the shell's "cannot execute". stderr says why.
 */
export const NOT_RUN_EXIT_CODE = 126;

/** The text the model reads for a result: its (truncated) output, or the error message. */
export function resultText(result: ToolResult): string {
  return result.content;
}

/**
 * Whether a shell_call's command lets the next one run: it ran and exited, whatever its exit
 * code. A command that timed out (its own timeout_ms, reported by the shell tool as an `ok`
 * result with a timeout note, or the gateway's), or did not run (parked, refused, failed) stops
 * the rest, as OpenAI's reference executor stops at a timeout.
 */
export function shellCommandExited(result: ToolResult): boolean {
  return result.status === 'ok' && commandOutput(result).outcome.type === 'exit';
}

/**
 * A shell_call command's `ok` result with its outcome (command_outcome) read from `output`, its
 * whole output: the content the model reads is cut to the tool's output limits (the tenant's to
 * set), which may drop the header's exit code or the timeout note. Any other result as it is.
 */
export function withCommandOutcome(call: Pick<ToolCall, 'native'>, result: ToolResult, output: string): ToolResult {
  if (call.native?.type !== 'shell_call' || result.status !== 'ok') return result;
  return { ...result, command_outcome: outcomeOf(output) };
}

/**
 * One output item per call item, in the order of the calls: `function_call_output`;
 * `apply_patch_call_output` (completed, or failed with the message for any other status,
 * including pending_approval); one `shell_call_output` per shell_call with an entry per command
 * that was dispatched (a command that did not exit stops the rest, see shellCommandExited, and
 * its entry says so).
 */
export function writeResponsesItems(results: ToolResult[], calls: ToolCall[]): ResponsesOutputItem[] {
  const byId = new Map(results.map((r) => [r.call_id, r]));
  const items: ResponsesOutputItem[] = [];
  for (const group of groupByNativeItem(calls)) {
    const native = group[0].native;
    const groupResults = group.flatMap((call) => byId.get(call.call_id) ?? []);
    if (native?.type === 'shell_call') items.push(shellCallOutput(native.call_id, groupResults, group.length, native.max_output_length));
    else if (native?.type === 'apply_patch_call') items.push(...groupResults.map((r) => applyPatchCallOutput(native.call_id, r)));
    else items.push(...groupResults.map(functionCallOutput));
  }
  return items;
}

function functionCallOutput(result: ToolResult): FunctionCallOutputItem {
  return { type: 'function_call_output', call_id: result.call_id, output: responsesFunctionCallOutput(result) };
}

function applyPatchCallOutput(call_id: string, result: ToolResult): ApplyPatchCallOutputItem {
  return { type: 'apply_patch_call_output', call_id, status: result.status === 'ok' ? 'completed' : 'failed', output: resultText(result) };
}

function shellCallOutput(call_id: string, results: ToolResult[], commands: number, maxOutputLength: number | undefined): ShellCallOutputItem {
  const output = results.map((r) => (maxOutputLength === undefined ? commandOutput(r) : capOutput(commandOutput(r), maxOutputLength)));
  const skipped = commands - results.length;
  if (skipped > 0 && output.length > 0) {
    const last = output[output.length - 1];
    last.stderr += `${last.stderr === '' ? '' : '\n'}[toolgate: the ${skipped} command(s) after this one in the shell_call were not run.]`;
  }
  return {
    type: 'shell_call_output',
    call_id,
    output,
    max_output_length: maxOutputLength ?? null,
  };
}

/**
 * A command's result as stdout, stderr (from the text the model reads) and outcome (the one
 * read from its whole output where the result carries it); a result that is not the shell
 * tool's layout is all stdout.
 */
function commandOutput(result: ToolResult): ShellCommandOutput {
  const text = resultText(result);
  if (result.status === 'timeout') return { stdout: '', stderr: text, outcome: { type: 'timeout' } };
  if (result.status !== 'ok') return { stdout: '', stderr: text, outcome: { type: 'exit', exit_code: NOT_RUN_EXIT_CODE } };
  const parts = readShellResult(text);
  const outcome = result.command_outcome ?? outcomeOf(text);
  return parts ? { stdout: parts.stdout, stderr: parts.stderr, outcome } : { stdout: text, stderr: '', outcome };
}

/** How a command ended, as the shell tool's text says: a text in another layout (a tenant's own `shell` tool) reads as exit 0. */
function outcomeOf(text: string): CommandOutcome {
  const parts = readShellResult(text);
  if (!parts) return { type: 'exit', exit_code: 0 };
  if (parts.timed_out) return { type: 'timeout' };
  return { type: 'exit', exit_code: parts.exit_code ?? signalExitCode(parts.signal) };
}

const SIGNAL_NUMBERS: Record<string, number> = { SIGHUP: 1, SIGINT: 2, SIGQUIT: 3, SIGABRT: 6, SIGKILL: 9, SIGSEGV: 11, SIGPIPE: 13, SIGTERM: 15 };

/** A process killed by a signal reports 128 + the signal's number, as a shell does. */
function signalExitCode(signal: string | null): number {
  return 128 + (signal === null ? 0 : (SIGNAL_NUMBERS[signal] ?? 0));
}

/**
 * At most `max` characters of stdout and stderr together: stderr keeps up to half (more when
 * stdout is short), each stream keeps its start and end around a note of what was cut.
 */
function capOutput(output: ShellCommandOutput, max: number): ShellCommandOutput {
  const { stdout, stderr } = output;
  if (stdout.length + stderr.length <= max) return output;
  const stderrBudget = Math.min(stderr.length, max - Math.min(stdout.length, Math.floor(max / 2)));
  return { ...output, stdout: keepEnds(stdout, max - stderrBudget, max), stderr: keepEnds(stderr, stderrBudget, max) };
}

function keepEnds(text: string, budget: number, max: number): string {
  if (text.length <= budget) return text;
  const note = `\n[... cut from ${text.length} characters: max_output_length is ${max} ...]\n`;
  if (budget <= note.length) return text.slice(0, budget);
  const head = Math.ceil((budget - note.length) / 2);
  const tail = budget - note.length - head;
  return `${text.slice(0, head)}${note}${tail > 0 ? text.slice(text.length - tail) : ''}`;
}
