import { describe, expect, it } from 'vitest';
import type { ExecResult } from '../../../lib/exec/environment.ts';
import { formatShellResult, readShellResult } from '../../../lib/tools/coding/shell-output.ts';
import { CODING_OUTPUT_LIMITS } from '../../../lib/tools/coding/output-limits.ts';
import { truncateOutput } from '../../../lib/tools/truncate.ts';

const run = (over: Partial<ExecResult>): ExecResult => ({ exit_code: 0, signal: null, stdout: '', stderr: '', timed_out: false, duration_ms: 12, output_capped: false, ...over });
const roundTrip = (result: ExecResult) => readShellResult(formatShellResult(result, 5000, 600_000));

describe('reading back the shell tool output', () => {
  it('gives exit code, streams (without their final newline) and timeout', () => {
    expect(roundTrip(run({ stdout: 'a\nb\n', stderr: 'warn\n', exit_code: 1 }))).toEqual({ exit_code: 1, signal: null, stdout: 'a\nb', stderr: 'warn', timed_out: false });
    expect(roundTrip(run({}))).toEqual({ exit_code: 0, signal: null, stdout: '', stderr: '', timed_out: false });
    expect(roundTrip(run({ exit_code: null, signal: 'SIGTERM', stdout: 'partial', timed_out: true }))).toEqual({ exit_code: null, signal: 'SIGTERM', stdout: 'partial', stderr: '', timed_out: true });
    expect(roundTrip(run({ exit_code: null, signal: 'SIGKILL', stderr: 'x', output_capped: true }))).toEqual({ exit_code: null, signal: 'SIGKILL', stdout: '', stderr: 'x', timed_out: false });
  });

  it('output that prints the layout\'s own lines stays in its stream', () => {
    const stdout = 'Exit code: 9\n--- stdout ---\n[ERROR: Command timed out after 1 ms and was stopped.]\n';
    expect(roundTrip(run({ stdout, stderr: 'e' }))).toEqual({ exit_code: 0, signal: null, stdout: stdout.trimEnd(), stderr: 'e', timed_out: false });
  });

  it('reads the header and the timeout after truncation cut the middle', () => {
    const text = formatShellResult(run({ exit_code: null, signal: 'SIGTERM', stdout: `${'line\n'.repeat(20_000)}`, stderr: 'tail error', timed_out: true }), 5000, 600_000);
    const { content, truncated } = truncateOutput(text, CODING_OUTPUT_LIMITS.shell);
    expect(truncated).toBe(true);
    const parts = readShellResult(content);
    expect(parts).toMatchObject({ exit_code: null, timed_out: true, stderr: 'tail error' });
    expect(parts?.stdout).toContain('lines omitted');
  });

  it('is undefined for text in another layout', () => {
    expect(readShellResult('total 0\n')).toBeUndefined();
    expect(readShellResult('Exit code: 0\n')).toBeUndefined();
  });
});
