import { describe, expect, it } from 'vitest';
import { ExecEnvironmentError } from '../../../lib/exec/environment.ts';
import { editFileTool } from '../../../lib/tools/coding/edit-file.ts';
import { MemoryEnvironment } from '../../helpers/memory-environment.ts';
import { run, runError } from './run-tool.ts';

const bytesOf = (text: string) => [...new TextEncoder().encode(text)];

describe('edit_file: replacing', () => {
  it('replaces the one occurrence and says how many were replaced', async () => {
    const env = new MemoryEnvironment({ 'a.ts': 'const a = 1;\nconst b = 2;\n' });
    const output = await run(editFileTool(env), { file_path: 'a.ts', old_string: 'b = 2', new_string: 'b = 3' });
    expect(output).toBe('Replaced 1 occurrence in a.ts.');
    expect(env.text('a.ts')).toBe('const a = 1;\nconst b = 3;\n');
  });

  it('replaces every occurrence with replace_all', async () => {
    const env = new MemoryEnvironment({ 'a.ts': 'foo(); foo(); bar(); foo();' });
    const output = await run(editFileTool(env), { file_path: 'a.ts', old_string: 'foo', new_string: 'baz', replace_all: true });
    expect(output).toBe('Replaced 3 occurrences in a.ts.');
    expect(env.text('a.ts')).toBe('baz(); baz(); bar(); baz();');
  });

  it('takes new_string literally ($& and $1 are not replacement patterns)', async () => {
    const env = new MemoryEnvironment({ 'a.txt': 'price: X\nprice: X\n' });
    await run(editFileTool(env), { file_path: 'a.txt', old_string: 'X', new_string: "$& $1 $$ $'", replace_all: true });
    expect(env.text('a.txt')).toBe("price: $& $1 $$ $'\nprice: $& $1 $$ $'\n");
  });

  it('keeps every byte outside the replaced span: CRLF, BOM, trailing whitespace, no final newline', async () => {
    const original = '\uFEFFline one  \r\nline two\r\n\tline three';
    const env = new MemoryEnvironment({ 'win.txt': original });
    await run(editFileTool(env), { file_path: 'win.txt', old_string: 'two', new_string: '2' });
    expect(bytesOf(env.text('win.txt') ?? '')).toEqual(bytesOf(original.replace('two', '2')));
  });

  it('matches a multi-line old_string written with LF against a CRLF file, and keeps the file CRLF', async () => {
    const env = new MemoryEnvironment({ 'win.txt': 'a\r\nb\r\nc\r\n' });
    const output = await run(editFileTool(env), { file_path: 'win.txt', old_string: 'a\nb\n', new_string: 'A\nB\nB2\n' });
    expect(output).toBe('Replaced 1 occurrence in win.txt.');
    expect(env.text('win.txt')).toBe('A\r\nB\r\nB2\r\nc\r\n');
  });

  it('matches an old_string written with CRLF exactly', async () => {
    const env = new MemoryEnvironment({ 'win.txt': 'a\r\nb\r\n' });
    await run(editFileTool(env), { file_path: 'win.txt', old_string: 'a\r\nb', new_string: 'x\r\ny' });
    expect(env.text('win.txt')).toBe('x\r\ny\r\n');
  });
});

describe('edit_file: errors', () => {
  const file = 'function f() {\n  return 1;\n}\nfunction g() {\n  return 1;\n}\n';

  it('quotes what was searched for when old_string is not found', async () => {
    const env = new MemoryEnvironment({ 'a.js': file });
    const error = await runError(editFileTool(env), { file_path: 'a.js', old_string: 'return  2;', new_string: 'return 3;' });
    expect(error.code).toBe('error');
    expect(error.message).toBe(
      'old_string was not found in a.js. It must match the file exactly, including whitespace, indentation and line breaks; ' +
        'read the file again with read_file and copy the text (without the line-number prefixes). Searched for:\nreturn  2;',
    );
    expect(env.text('a.js')).toBe(file);
  });

  it('gives the count and how to disambiguate when old_string occurs several times', async () => {
    const env = new MemoryEnvironment({ 'a.js': file });
    const error = await runError(editFileTool(env), { file_path: 'a.js', old_string: 'return 1;', new_string: 'return 2;' });
    expect(error.message).toBe(
      'old_string occurs 2 times in a.js, but replace_all is false. ' +
        'Add more surrounding lines to old_string so that it matches exactly one place, or set replace_all to true to replace every occurrence.',
    );
    expect(env.text('a.js')).toBe(file);
  });

  it('refuses identical strings and an empty old_string before touching the file', async () => {
    const env = new MemoryEnvironment();
    env.fail('readFile', new Error('must not be read'));
    const identical = await runError(editFileTool(env), { file_path: 'a.js', old_string: 'x', new_string: 'x' });
    expect(identical.message).toBe(
      'old_string and new_string are identical, so there is nothing to change. Provide the new text in new_string.',
    );
    const empty = await runError(editFileTool(env), { file_path: 'a.js', old_string: '', new_string: 'x' });
    expect(empty.message).toBe(
      'old_string is empty. Copy the exact text to replace from a.js; to add text, include the neighbouring lines in both old_string and new_string. To create a file, use write_file.',
    );
  });

  it('fails clearly for a missing file, a directory and a binary file', async () => {
    const env = new MemoryEnvironment({ 'src/a.ts': 'x', 'blob.bin': new Uint8Array([1, 0, 2]) });
    const tool = editFileTool(env);
    const args = { old_string: 'a', new_string: 'b' };
    expect((await runError(tool, { file_path: 'new.ts', ...args })).message).toBe(
      'File not found: new.ts. edit_file only changes existing files; use write_file to create one.',
    );
    expect((await runError(tool, { file_path: 'src', ...args })).message).toBe('src is a directory, not a file.');
    expect((await runError(tool, { file_path: 'blob.bin', ...args })).message).toBe(
      'Cannot edit blob.bin: it is a binary file (it contains NUL bytes or is not valid UTF-8). edit_file only changes text files.',
    );
  });

  it('keeps unavailable when the write fails that way', async () => {
    const env = new MemoryEnvironment({ 'a.txt': 'a' });
    env.fail('writeFile', new ExecEnvironmentError('unavailable', 'connection reset'));
    const error = await runError(editFileTool(env), { file_path: 'a.txt', old_string: 'a', new_string: 'b' });
    expect([error.code, error.message]).toEqual(['unavailable', 'The execution environment is unavailable: connection reset']);
  });
});
