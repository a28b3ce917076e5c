import { describe, expect, it } from 'vitest';
import { ExecEnvironmentError } from '../../../lib/exec/environment.ts';
import { globTool } from '../../../lib/tools/coding/glob.ts';
import { MemoryEnvironment } from '../../helpers/memory-environment.ts';
import { run, runError } from './run-tool.ts';

describe('glob', () => {
  it('lists matching paths newest first, one per line', async () => {
    const env = new MemoryEnvironment();
    env.put('src/old.ts', 'x', 1_000);
    env.put('src/new.ts', 'x', 3_000);
    env.put('src/deep/mid.ts', 'x', 2_000);
    env.put('src/readme.md', 'x', 4_000);
    expect(await run(globTool(env), { pattern: '**/*.ts' })).toBe('src/new.ts\nsrc/deep/mid.ts\nsrc/old.ts');
    expect(await run(globTool(env), { pattern: '*.ts', path: 'src' })).toBe('src/new.ts\nsrc/old.ts');
  });

  it('sorts newest first even when the environment does not', async () => {
    const env = new MemoryEnvironment();
    env.glob = async () => [
      { path: 'a', mtime_ms: 1 },
      { path: 'b', mtime_ms: 3 },
      { path: 'c', mtime_ms: 2 },
    ];
    expect(await run(globTool(env), { pattern: '*' })).toBe('b\nc\na');
  });

  it('says so when nothing matches (not an error)', async () => {
    const env = new MemoryEnvironment({ 'a.ts': 'x' });
    expect(await run(globTool(env), { pattern: '**/*.rs' })).toBe('No files found matching "**/*.rs" in the working directory.');
  });

  it('reports a missing directory, a file given as the directory, and keeps unavailable', async () => {
    const env = new MemoryEnvironment({ 'a.ts': 'x' });
    expect((await runError(globTool(env), { pattern: '*', path: 'lib' })).message).toBe('Path not found: lib');
    expect((await runError(globTool(env), { pattern: '*', path: 'a.ts' })).message).toBe(
      'a.ts is not a directory, or one of its parent folders is a file.',
    );
    env.fail('glob', new ExecEnvironmentError('unavailable', 'down'));
    expect((await runError(globTool(env), { pattern: '*' })).code).toBe('unavailable');
  });
});
