import { describe, expect, it } from 'vitest';
import { ExecEnvironmentError } from '../../../lib/exec/environment.ts';
import { ToolError } from '../../../lib/registry/errors.ts';
import { readFileTool } from '../../../lib/tools/coding/read-file.ts';
import { MemoryEnvironment } from '../../helpers/memory-environment.ts';
import { run, runError } from './run-tool.ts';

function lines(count: number): string {
  return Array.from({ length: count }, (_, i) => `line ${i + 1}`).join('\n') + '\n';
}

describe('read_file', () => {
  it('numbers lines as "   N | text", right-aligned to at least 4 columns', async () => {
    const env = new MemoryEnvironment({ 'src/a.ts': 'const a = 1;\n\n  return a;\n' });
    expect(await run(readFileTool(env), { file_path: 'src/a.ts' })).toBe(
      '   1 | const a = 1;\n   2 | \n   3 |   return a;',
    );
  });

  it('widens the number column for line numbers over 9999', async () => {
    const env = new MemoryEnvironment({ 'big.txt': lines(10_001) });
    expect(await run(readFileTool(env), { file_path: 'big.txt', offset: 9999, limit: 3 })).toBe(
      ' 9999 | line 9999\n10000 | line 10000\n10001 | line 10001',
    );
  });

  it('reads a file without a final newline, a CRLF file without its CRs, and drops a BOM', async () => {
    const env = new MemoryEnvironment({ 'a.txt': 'one\ntwo', 'b.txt': '\uFEFFone\r\ntwo\r\n' });
    expect(await run(readFileTool(env), { file_path: 'a.txt' })).toBe('   1 | one\n   2 | two');
    expect(await run(readFileTool(env), { file_path: 'b.txt' })).toBe('   1 | one\n   2 | two');
  });

  it('honours offset and limit, and says how to read the rest', async () => {
    const env = new MemoryEnvironment({ 'f.txt': lines(10) });
    expect(await run(readFileTool(env), { file_path: 'f.txt', offset: 3, limit: 2 })).toBe(
      '   3 | line 3\n   4 | line 4\n\n[Showing lines 3-4 of 10. To read more, call read_file with offset=5.]',
    );
    expect(await run(readFileTool(env), { file_path: 'f.txt', offset: 9 })).toBe('   9 | line 9\n  10 | line 10');
  });

  it('reads 2000 lines by default', async () => {
    const env = new MemoryEnvironment({ 'f.txt': lines(2500) });
    const output = await run(readFileTool(env), { file_path: 'f.txt' });
    expect(output.split('\n').filter((line) => line.includes(' | '))).toHaveLength(2000);
    expect(output.endsWith('[Showing lines 1-2000 of 2500. To read more, call read_file with offset=2001.]')).toBe(true);
  });

  it('says so for an empty file', async () => {
    const env = new MemoryEnvironment({ 'empty.txt': '' });
    expect(await run(readFileTool(env), { file_path: 'empty.txt' })).toBe('[File is empty: empty.txt]');
  });

  it('explains an offset past the end', async () => {
    const env = new MemoryEnvironment({ 'f.txt': lines(10), 'one.txt': 'x' });
    const error = await runError(readFileTool(env), { file_path: 'f.txt', offset: 11 });
    expect(error.code).toBe('error');
    expect(error.message).toBe('Offset 11 is past the end of f.txt, which has 10 lines. Use an offset from 1 to 10.');
    expect((await runError(readFileTool(env), { file_path: 'one.txt', offset: 2 })).message).toBe(
      'Offset 2 is past the end of one.txt, which has 1 line. Use an offset from 1 to 1.',
    );
  });

  it('lists a directory two levels deep, hidden items left out, folders marked with "/"', async () => {
    const env = new MemoryEnvironment({ 'src/a.ts': 'x', 'src/lib/b.ts': 'y', 'src/lib/deep/c.ts': 'z', 'src/.env': 's', '.git/HEAD': 'h', 'README.md': 'r' });
    const tool = readFileTool(env);
    expect(await run(tool, { file_path: 'src' })).toBe('Files and folders in src, up to 2 levels deep (hidden items left out):\nsrc/a.ts\nsrc/lib/\nsrc/lib/b.ts\nsrc/lib/deep/');
    expect(await run(tool, { file_path: '.' })).toBe('Files and folders in the working directory, up to 2 levels deep (hidden items left out):\nREADME.md\nsrc/\nsrc/a.ts\nsrc/lib/');
    expect((await runError(tool, { file_path: 'src', offset: 2 })).message).toBe('src is a directory: offset and limit (a range of lines) only apply to files. Leave them out to list the directory.');
    env.directories.add('empty');
    expect(await run(tool, { file_path: 'empty' })).toBe('empty is empty (hidden items left out).');
  });

  it('fails clearly for a missing file and a binary file', async () => {
    const env = new MemoryEnvironment({ 'src/a.ts': 'x', 'img.png': new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 1]) });
    env.put('latin1.txt', new Uint8Array([0x63, 0x61, 0x66, 0xe9]));
    const tool = readFileTool(env);
    expect((await runError(tool, { file_path: 'nope.ts' })).message).toBe(
      'File not found: nope.ts. Check the path, or find the file with glob.',
    );
    const binary = 'it is a binary file (it contains NUL bytes or is not valid UTF-8). read_file only shows text files.';
    expect((await runError(tool, { file_path: 'img.png' })).message).toBe(`Cannot read img.png: ${binary}`);
    expect((await runError(tool, { file_path: 'latin1.txt' })).message).toBe(`Cannot read latin1.txt: ${binary}`);
  });

  it('only looks for NUL bytes in the first 8 KiB', async () => {
    const text = 'a'.repeat(8192) + '\0tail';
    const env = new MemoryEnvironment({ 'late-nul.txt': text });
    expect(await run(readFileTool(env), { file_path: 'late-nul.txt' })).toBe(`   1 | ${text}`);
  });

  it('maps environment errors: outside the root, and unavailable', async () => {
    const env = new MemoryEnvironment();
    const outside = await runError(readFileTool(env), { file_path: '../etc/passwd' });
    expect(outside.code).toBe('error');
    expect(outside.message).toBe(
      'Path ../etc/passwd is outside the working directory. Use a path relative to the working directory, or an absolute path inside it.',
    );
    env.fail('readFile', new ExecEnvironmentError('unavailable', 'connection refused'));
    const down = await runError(readFileTool(env), { file_path: 'a.txt' });
    expect(down.code).toBe('unavailable');
    expect(down.message).toBe('The execution environment is unavailable: connection refused');
  });

  it('passes a ToolError thrown by the environment through unchanged', async () => {
    const env = new MemoryEnvironment();
    const thrown = new ToolError('unavailable', 'exec server returned 503');
    env.fail('readFile', thrown);
    expect(await runError(readFileTool(env), { file_path: 'a.txt' })).toBe(thrown);
  });

  it('accepts an absolute path inside the root', async () => {
    const env = new MemoryEnvironment({ 'a.txt': 'hi\n' });
    expect(await run(readFileTool(env), { file_path: '/workspace/a.txt' })).toBe('   1 | hi');
  });
});
