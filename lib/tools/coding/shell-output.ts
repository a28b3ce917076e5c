import type { ExecResult } from '../../exec/environment.ts';

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
 * first and the notes last so that head_tail truncation keeps both.
 */
export function formatShellResult(result: ExecResult, timeoutMs: number, maxTimeoutMs: number): string {
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
  if (result.timed_out) text += `\n\n${timeoutNote(timeoutMs, maxTimeoutMs)}`;
  return text;
}

const CAPPED_NOTE =
  '[WARNING: The command printed more output than the execution environment keeps, so part of it is missing above. ' +
  'Redirect the output to a file and read or grep that file instead.]';

export function timeoutNote(timeoutMs: number, maxTimeoutMs: number): string {
  return (
    `[ERROR: Command timed out after ${timeoutMs} ms and was stopped. Partial output is shown above. ` +
    `If it needs more time, run it again with a larger timeout_ms (up to ${maxTimeoutMs}).]`
  );
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
