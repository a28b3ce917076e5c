import { describe, expect, it } from 'vitest';
import { ExecEnvironmentError } from '../../../lib/exec/environment.ts';
import { shellTool } from '../../../lib/tools/coding/shell.ts';
import { truncateOutput } from '../../../lib/tools/truncate.ts';
import { MemoryEnvironment } from '../../helpers/memory-environment.ts';
import { run, runError, testContext } from './run-tool.ts';

describe('shell', () => {
  it('shows exit code, duration, stdout and stderr in a fixed layout', async () => {
    const env = new MemoryEnvironment();
    env.script = () => ({ stdout: 'hello\nworld\n', stderr: 'warning: x\n', duration_ms: 41.6 });
    expect(await run(shellTool(env), { command: 'echo hello' })).toBe(
      'Exit code: 0\nDuration: 42 ms\n--- stdout ---\nhello\nworld\n--- stderr ---\nwarning: x',
    );
  });

  it('marks empty streams and keeps a non-zero exit code an ordinary result', async () => {
    const env = new MemoryEnvironment();
    env.script = () => ({ exit_code: 2, stderr: 'ls: cannot access x\n' });
    expect(await run(shellTool(env), { command: 'ls x' })).toBe(
      'Exit code: 2\nDuration: 5 ms\n--- stdout ---\n(empty)\n--- stderr ---\nls: cannot access x',
    );
  });

  it('passes the default timeout of 10000 ms, or the requested one, to the environment', async () => {
    const env = new MemoryEnvironment();
    await run(shellTool(env), { command: 'true' });
    await run(shellTool(env), { command: 'make', timeout_ms: 120_000, description: 'build' });
    expect(env.commands).toEqual([
      { command: 'true', options: { timeout_ms: 10_000, signal: expect.any(AbortSignal) } },
      { command: 'make', options: { timeout_ms: 120_000, signal: expect.any(AbortSignal) } },
    ]);
  });

  it("cuts timeout_ms to the grant's max_timeout_ms on a call granted without a human; without one (approved) the model's stands", async () => {
    const env = new MemoryEnvironment();
    env.script = () => ({ exit_code: null, signal: 'SIGTERM', timed_out: true, duration_ms: 30_000 });
    const granted = await shellTool(env).execute({ command: 'tail -f log', timeout_ms: 600_000 }, { ...testContext(), max_timeout_ms: 30_000 });
    await shellTool(env).execute({ command: 'make', timeout_ms: 600_000 }, testContext());
    await shellTool(env).execute({ command: 'ls', timeout_ms: 2_000 }, { ...testContext(), max_timeout_ms: 30_000 });
    expect(env.commands.map((entry) => entry.options.timeout_ms)).toEqual([30_000, 600_000, 2_000]);
    expect(granted).toContain("[ERROR: Command timed out after 30000 ms and was stopped. Partial output is shown above. A command that runs without a human's approval may take at most 30000 ms here, whatever timeout_ms asks");
  });

  it('asks the environment for a read-only run when the call was granted read-only, and only then', async () => {
    const env = new MemoryEnvironment();
    await shellTool(env).execute({ command: 'git status' }, { ...testContext(), read_only: true });
    await shellTool(env).execute({ command: 'make' }, { ...testContext(), read_only: false });
    expect(env.commands).toEqual([
      { command: 'git status', options: { timeout_ms: 10_000, read_only: true, signal: expect.any(AbortSignal) } },
      { command: 'make', options: { timeout_ms: 10_000, signal: expect.any(AbortSignal) } },
    ]);
  });

  it('returns the partial output with a timeout note that says how to retry', async () => {
    const env = new MemoryEnvironment();
    env.script = () => ({ exit_code: null, signal: 'SIGTERM', timed_out: true, stdout: 'step 1\n', duration_ms: 2000 });
    expect(await run(shellTool(env), { command: 'sleep 100', timeout_ms: 2000 })).toBe(
      'Exit code: none (terminated by SIGTERM)\nDuration: 2000 ms\n--- stdout ---\nstep 1\n--- stderr ---\n(empty)\n\n' +
        '[ERROR: Command timed out after 2000 ms and was stopped. Partial output is shown above. ' +
        'If it needs more time, run it again with a larger timeout_ms (up to 600000).]',
    );
  });

  it('warns when the environment capped the output', async () => {
    const env = new MemoryEnvironment();
    env.script = () => ({ stdout: 'x', output_capped: true });
    expect(await run(shellTool(env), { command: 'yes' })).toBe(
      'Exit code: 0\nDuration: 5 ms\n--- stdout ---\nx\n--- stderr ---\n(empty)\n\n' +
        '[WARNING: The command printed more output than the execution environment keeps, so part of it is missing above. ' +
        'Redirect the output to a file and read or grep that file instead.]',
    );
  });

  it('reports a process without exit code or signal', async () => {
    const env = new MemoryEnvironment();
    env.script = () => ({ exit_code: null });
    expect((await run(shellTool(env), { command: 'x' })).startsWith('Exit code: none\n')).toBe(true);
  });

  it('keeps the header and the timeout note when the pipeline truncates a huge output', async () => {
    const env = new MemoryEnvironment();
    const stdout = Array.from({ length: 5000 }, (_, i) => `output line ${i}`).join('\n');
    env.script = () => ({ exit_code: null, signal: 'SIGKILL', timed_out: true, stdout });
    const tool = shellTool(env);
    const { content, truncated } = truncateOutput(await run(tool, { command: 'build' }), tool.definition.output);
    expect(truncated).toBe(true);
    expect(content.startsWith('Exit code: none (terminated by SIGKILL)\nDuration: 5 ms\n--- stdout ---\noutput line 0\n')).toBe(true);
    expect(content).toContain('lines omitted');
    expect(content.endsWith('run it again with a larger timeout_ms (up to 600000).]')).toBe(true);
  });

  it('gives the pipeline more time than the longest command', () => {
    expect(shellTool(new MemoryEnvironment()).definition.timeout_ms).toBe(610_000);
  });

  it('keeps unavailable and maps a rejected request', async () => {
    const env = new MemoryEnvironment();
    env.fail('execCommand', new ExecEnvironmentError('unavailable', 'exec server unreachable'));
    expect((await runError(shellTool(env), { command: 'ls' })).code).toBe('unavailable');
    env.fail('execCommand', new ExecEnvironmentError('invalid_request', 'commands are disabled'));
    const rejected = await runError(shellTool(env), { command: 'ls' });
    expect([rejected.code, rejected.message]).toEqual(['error', 'The execution environment rejected the request: commands are disabled']);
  });
});
