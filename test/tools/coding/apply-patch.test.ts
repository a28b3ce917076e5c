import { describe, expect, it } from 'vitest';
import { ExecEnvironmentError } from '../../../lib/exec/environment.ts';
import { ToolError } from '../../../lib/registry/errors.ts';
import { applyPatchTool } from '../../../lib/tools/coding/apply-patch.ts';
import { MemoryEnvironment } from '../../helpers/memory-environment.ts';
import { run, runError } from './run-tool.ts';

function patch(...body: string[]): string {
  return ['*** Begin Patch', ...body, '*** End Patch'].join('\n');
}

describe('apply_patch tool', () => {
  it('applies a multi-file patch through the environment and answers with Codex\'s summary', async () => {
    const env = new MemoryEnvironment({ 'src/app.py': 'def main():\n    print("hi")\n', 'old.txt': 'bye\n' });
    const output = await run(applyPatchTool(env), {
      patch: patch(
        '*** Add File: docs/readme.md',
        '+# Title',
        '*** Update File: src/app.py',
        '@@ def main():',
        '-    print("hi")',
        '+    print("hello")',
        '*** Delete File: old.txt',
      ),
    });
    expect(output).toBe('Success. Updated the following files:\nA docs/readme.md\nM src/app.py\nD old.txt\n');
    expect(env.text('docs/readme.md')).toBe('# Title\n');
    expect(env.text('src/app.py')).toBe('def main():\n    print("hello")\n');
    expect(env.text('old.txt')).toBeUndefined();
  });

  it('turns a parse failure into an error with the engine\'s exact message', async () => {
    const error = await runError(applyPatchTool(new MemoryEnvironment()), { patch: 'not a patch' });
    expect(error.code).toBe('error');
    expect(error.message).toBe("Invalid patch: The first line of the patch must be '*** Begin Patch'");
  });

  it('turns a context mismatch into an error', async () => {
    const env = new MemoryEnvironment({ 'a.txt': 'one\ntwo\n' });
    const error = await runError(applyPatchTool(env), { patch: patch('*** Update File: a.txt', '@@', '-three', '+3') });
    expect(error.message).toBe('Failed to find expected lines in a.txt:\nthree');
  });

  it('reports a missing file to update as Codex does', async () => {
    const error = await runError(applyPatchTool(new MemoryEnvironment()), { patch: patch('*** Update File: gone.txt', '@@', '-a', '+b') });
    expect(error.message).toBe('Failed to read file to update gone.txt: No such file or directory (os error 2)');
  });

  it('keeps unavailable when the environment is down, whether it throws ExecEnvironmentError or ToolError', async () => {
    const env = new MemoryEnvironment({ 'a.txt': 'a\n' });
    env.fail('readFile', new ExecEnvironmentError('unavailable', 'exec server unreachable'));
    const update = patch('*** Update File: a.txt', '@@', '-a', '+b');
    const down = await runError(applyPatchTool(env), { patch: update });
    expect([down.code, down.message]).toEqual(['unavailable', 'The execution environment is unavailable: exec server unreachable']);
    env.fail('writeFile', new ToolError('unavailable', 'exec server returned 503'));
    const add = await runError(applyPatchTool(env), { patch: patch('*** Add File: b.txt', '+b') });
    expect([add.code, add.message]).toEqual(['unavailable', 'exec server returned 503']);
  });

  it('names the reason when the environment refuses a path (outside the root), for writes, deletes and moves', async () => {
    const env = new MemoryEnvironment({ 'a.txt': 'a\n' });
    const add = await runError(applyPatchTool(env), { patch: patch('*** Add File: ../x.txt', '+x') });
    expect(add.message).toMatch(/^Failed to write file \.\.\/x\.txt: .*outside/);
    const remove = await runError(applyPatchTool(env), { patch: patch('*** Delete File: ../a.txt') });
    expect(remove.message).toMatch(/^Failed to delete file \.\.\/a\.txt: .*outside/);
    const move = await runError(applyPatchTool(env), { patch: patch('*** Update File: a.txt', '*** Move to: ../b.txt', '@@', '-a', '+b') });
    expect(move.message).toMatch(/^Failed to write file \.\.\/b\.txt: .*outside/);
    expect(env.text('a.txt')).toBe('a\n');
  });

  it('refuses a move onto the file itself, which Codex would turn into a deletion', async () => {
    const env = new MemoryEnvironment({ 'a.txt': 'a\n' });
    const error = await runError(applyPatchTool(env), { patch: patch('*** Update File: a.txt', '*** Move to: sub/../a.txt', '@@', '-a', '+b') });
    expect(error.code).toBe('error');
    expect(error.message).toMatch(/^Refused: '\*\*\* Move to: sub\/\.\.\/a\.txt' names the file being updated/);
    expect(env.text('a.txt')).toBe('a\n');
  });
});
