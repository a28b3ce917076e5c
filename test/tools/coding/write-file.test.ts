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

  it('insert_line inserts whole lines after a line (0 = top), the file\'s way, and refuses a line past the end', async () => {
    const env = new MemoryEnvironment({ 'a.txt': 'one\ntwo\nthree\n', 'crlf.txt': 'one\r\ntwo\r\n', 'open.txt': 'one\ntwo', 'bom.txt': '\uFEFFone\n', 'empty.txt': '' });
    const tool = writeFileTool(env);
    expect(await run(tool, { file_path: 'a.txt', insert_line: 0, content: 'zero' })).toBe('Inserted 1 line at the top of a.txt.');
    expect(await run(tool, { file_path: 'a.txt', insert_line: 2, content: 'one and a half\nstill\n' })).toBe('Inserted 2 lines after line 2 of a.txt.');
    expect(await run(tool, { file_path: 'a.txt', insert_line: 6, content: 'four' })).toBe('Inserted 1 line after line 6 of a.txt.');
    expect(env.text('a.txt')).toBe('zero\none\none and a half\nstill\ntwo\nthree\nfour\n');
    await run(tool, { file_path: 'crlf.txt', insert_line: 1, content: 'x\ny' });
    expect(env.text('crlf.txt')).toBe('one\r\nx\r\ny\r\ntwo\r\n');
    await run(tool, { file_path: 'open.txt', insert_line: 2, content: 'three' });
    expect(env.text('open.txt')).toBe('one\ntwo\nthree\n');
    await run(tool, { file_path: 'bom.txt', insert_line: 0, content: 'zero' });
    expect(env.text('bom.txt')).toBe('\uFEFFzero\none\n');
    await run(tool, { file_path: 'empty.txt', insert_line: 0, content: 'first' });
    expect(env.text('empty.txt')).toBe('first\n');
    const past = await runError(tool, { file_path: 'a.txt', insert_line: 8, content: 'x' });
    expect(past.message).toBe('insert_line 8 is past the end of a.txt, which has 7 lines. Use a line number from 0 (insert at the top) to 7 (insert after the last line).');
    expect(env.text('a.txt')).toBe('zero\none\none and a half\nstill\ntwo\nthree\nfour\n');
    expect((await runError(tool, { file_path: 'nope.txt', insert_line: 0, content: 'x' })).message).toBe(
      'File not found: nope.txt. insert_line inserts into an existing file; leave insert_line out to create the file.',
    );
    expect((await runError(tool, { file_path: 'a.txt', insert_line: 1, content: '' })).message).toContain('nothing to insert');
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
