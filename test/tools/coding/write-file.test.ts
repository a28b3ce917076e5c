import { describe, expect, it } from 'vitest';
import { ExecEnvironmentError } from '../../../lib/exec/environment.ts';
import { writeFileTool } from '../../../lib/tools/coding/write-file.ts';
import { MemoryEnvironment } from '../../helpers/memory-environment.ts';
import { run, runError } from './run-tool.ts';

describe('write_file', () => {
  it('creates the file and its parent folders, and reports the UTF-8 byte count', async () => {
    const env = new MemoryEnvironment();
    expect(await run(writeFileTool(env), { file_path: 'a/b/c.txt', content: 'héllo\n' })).toBe('Wrote 7 bytes to a/b/c.txt');
    expect(env.text('a/b/c.txt')).toBe('héllo\n');
    expect(env.directories.has('a/b')).toBe(true);
  });

  it('replaces an existing file and writes empty content', async () => {
    const env = new MemoryEnvironment({ 'x.txt': 'old' });
    expect(await run(writeFileTool(env), { file_path: 'x.txt', content: '' })).toBe('Wrote 0 bytes to x.txt');
    expect(env.text('x.txt')).toBe('');
  });

  it('fails clearly for a directory, a path outside the root, and a file used as a folder', async () => {
    const env = new MemoryEnvironment({ 'src/a.ts': 'x' });
    const tool = writeFileTool(env);
    expect((await runError(tool, { file_path: 'src', content: 'x' })).message).toBe(
      'src is a directory; write_file needs the path of a file.',
    );
    expect((await runError(tool, { file_path: '/etc/x', content: 'x' })).message).toBe(
      'Path /etc/x is outside the working directory. Use a path relative to the working directory, or an absolute path inside it.',
    );
    expect((await runError(tool, { file_path: 'src/a.ts/b', content: 'x' })).message).toBe(
      'src/a.ts/b is not a directory, or one of its parent folders is a file.',
    );
  });

  it('reports io errors and keeps unavailable', async () => {
    const env = new MemoryEnvironment();
    env.fail('writeFile', new ExecEnvironmentError('io_error', 'ENOSPC: no space left on device'));
    const io = await runError(writeFileTool(env), { file_path: 'a.txt', content: 'x' });
    expect([io.code, io.message]).toEqual(['error', 'I/O error on a.txt: ENOSPC: no space left on device']);
    env.fail('writeFile', new ExecEnvironmentError('unavailable', 'timed out'));
    expect((await runError(writeFileTool(env), { file_path: 'a.txt', content: 'x' })).code).toBe('unavailable');
  });
});
