import type { ExecResult } from '../../exec/environment.ts';
import { FUNCTION_TOOLS_VOCABULARY } from './function-vocabulary.ts';
import type { ShellWording } from './vocabulary.ts';

/**
 * The text the model reads for a finished command, in a fixed layout:
 *
 *   Exit code: 0
 *   Duration: 42 ms
 *   --- stdout ---
 *   ...
 *   --- stderr ---
 *   ...
 *
 * followed, when they apply, by a capped-output warning and the timeout error. The header comes
 * first and the notes last so that head_tail truncation keeps both. `words` phrase the timeout's advice
 * in the terms of the tool the model called.
 */
export function formatShellResult(
  result: ExecResult,
  timeoutMs: number,
  maxTimeoutMs: number,
  limitedByGrant = false,
  words: ShellWording = FUNCTION_TOOLS_VOCABULARY.shell,
): string {
  const sections = [
    `Exit code: ${describeExit(result)}`,
    `Duration: ${Math.round(result.duration_ms)} ms`,
    '--- stdout ---',
    streamText(result.stdout),
    '--- stderr ---',
    streamText(result.stderr),
  ];
  let text = sections.join('\n');
  if (result.output_capped) text += `\n\n${CAPPED_NOTE}`;
  if (result.timed_out) text += `\n\n${timeoutNote(timeoutMs, maxTimeoutMs, limitedByGrant, words)}`;
  return text;
}

const CAPPED_NOTE =
  '[WARNING: The command printed more output than the execution environment keeps, so part of it is missing above. ' +
  'Redirect the output to a file and read or grep that file instead.]';

/**
 * The note ending a timed-out command's output. `limitedByGrant`: the command ran without a
 * human's approval, under the grant's maximum (`maxTimeoutMs`), so asking for more does not help.
 */
function timeoutNote(timeoutMs: number, maxTimeoutMs: number, limitedByGrant: boolean, words: ShellWording): string {
  const advice = words.timeoutAdvice(timeoutMs, maxTimeoutMs, limitedByGrant && timeoutMs >= maxTimeoutMs);
  return `[ERROR: Command timed out after ${timeoutMs} ms and was stopped. Partial output is shown above. ${advice}]`;
}

function describeExit({ exit_code, signal }: ExecResult): string {
  if (exit_code !== null) return String(exit_code);
  return signal === null ? 'none' : `none (terminated by ${signal})`;
}

/** One trailing newline is the stream's own terminator, not an empty line of output. */
function streamText(stream: string): string {
  if (stream === '') return '(empty)';
  return stream.replace(/\r?\n$/, '');
}

/** A command's outcome as read back from formatShellResult's text (for protocols that want the parts). */
export interface ShellResultParts {
  /** null when the process had no exit code (killed by a signal, or stopped at its timeout). */
  exit_code: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
  timed_out: boolean;
}

const HEADER = /^Exit code: (-?\d+|none(?: \(terminated by ([A-Z0-9]+)\))?)\nDuration: [^\n]*\n--- stdout ---\n/;
const STDERR_MARKER = '\n--- stderr ---\n';
const TIMEOUT_TAIL = /\n\n\[ERROR: Command timed out after \d+ ms and was stopped\.[^\n]*\]$/;

/**
 * The inverse of formatShellResult, on the text the model would read (which truncation may have
 * cut in the middle; the header and the notes survive it). undefined when the text is not in
 * that layout, as from a tenant's own `shell` tool. A stream that printed exactly "(empty)" or
 * the stderr marker line reads back differently; only what the model is shown is affected.
 */
export function readShellResult(text: string): ShellResultParts | undefined {
  const header = HEADER.exec(text);
  if (!header) return undefined;
  let body = text.slice(header[0].length);
  const timed_out = TIMEOUT_TAIL.test(body);
  if (timed_out) body = body.replace(TIMEOUT_TAIL, '');
  if (body.endsWith(`\n\n${CAPPED_NOTE}`)) body = body.slice(0, -(CAPPED_NOTE.length + 2));
  const split = body.lastIndexOf(STDERR_MARKER);
  const stdout = split === -1 ? body : body.slice(0, split);
  const stderr = split === -1 ? '' : body.slice(split + STDERR_MARKER.length);
  const code = header[1].startsWith('none') ? null : Number(header[1]);
  return { exit_code: code, signal: header[2] ?? null, stdout: streamValue(stdout), stderr: streamValue(stderr), timed_out };
}

function streamValue(section: string): string {
  return section === '(empty)' ? '' : section;
}
