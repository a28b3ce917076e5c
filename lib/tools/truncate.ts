import type { OutputLimits } from '../registry/definition.ts';

/** What a tool without limits of its own gets. */
export const DEFAULT_OUTPUT_LIMITS: Required<Pick<OutputLimits, 'max_chars' | 'mode'>> = {
  max_chars: 50_000,
  mode: 'head_tail',
};

export function truncateChars(output: string, maxChars: number, mode: 'head_tail' | 'tail'): string {
  if (output.length <= maxChars) return output;
  const removed = output.length - maxChars;
  if (mode === 'tail') {
    return `[WARNING: Tool output was truncated. First ${removed} characters were removed. The full output is available in the event stream.]\n\n${output.slice(-maxChars)}`;
  }
  const head = Math.floor(maxChars / 2);
  const tail = maxChars - head;
  return (
    `${output.slice(0, head)}\n\n[WARNING: Tool output was truncated. ${removed} characters were removed from the middle. ` +
    'The full output is available in the event stream. If you need to see specific parts, re-run the tool with more targeted parameters.]\n\n' +
    output.slice(output.length - tail)
  );
}

export function truncateLines(output: string, maxLines: number): string {
  const lines = output.split('\n');
  if (lines.length <= maxLines) return output;
  const head = Math.floor(maxLines / 2);
  const tail = maxLines - head;
  const omitted = lines.length - head - tail;
  return `${lines.slice(0, head).join('\n')}\n[... ${omitted} lines omitted ...]\n${lines.slice(lines.length - tail).join('\n')}`;
}

/** Characters first (a few huge lines are the real danger), then lines. */
export function truncateOutput(output: string, limits: OutputLimits = {}): { content: string; truncated: boolean } {
  const maxChars = limits.max_chars ?? DEFAULT_OUTPUT_LIMITS.max_chars;
  const mode = limits.mode ?? DEFAULT_OUTPUT_LIMITS.mode;
  let content = truncateChars(output, maxChars, mode);
  if (limits.max_lines !== undefined) content = truncateLines(content, limits.max_lines);
  return { content, truncated: content !== output };
}
