import type { OutputLimits } from '../../registry/definition.ts';

/**
 * How much of each coding tool's output the model sees (the full output still reaches the
 * `tool_call.end` event and audit). Characters are cut first, then lines (lib/tools/truncate.ts).
 * head_tail where both ends matter (a file's imports and its end, a command's start-up and its
 * result); tail where the output is a short confirmation or a list.
 */
export const CODING_OUTPUT_LIMITS = {
  read_file: { max_chars: 50_000, mode: 'head_tail' },
  write_file: { max_chars: 1_000, mode: 'tail' },
  edit_file: { max_chars: 10_000, mode: 'tail' },
  apply_patch: { max_chars: 10_000, mode: 'tail' },
  shell: { max_chars: 30_000, max_lines: 256, mode: 'head_tail' },
  grep: { max_chars: 20_000, max_lines: 200, mode: 'tail' },
  glob: { max_chars: 20_000, max_lines: 500, mode: 'tail' },
} as const satisfies Record<string, OutputLimits>;

export type CodingToolName = keyof typeof CODING_OUTPUT_LIMITS;

/** A fresh copy, so one tool's definition never shares (or mutates) another's limits. */
export function outputLimitsFor(tool: CodingToolName): OutputLimits {
  return { ...CODING_OUTPUT_LIMITS[tool] };
}
