import { describe, expect, it } from 'vitest';
import { ApplyPatchError, applyPatch } from '../../../lib/tools/apply-patch/index.ts';
import { MemoryFileSystem } from './memory-fs.ts';

function patch(...body: string[]): string {
  return ['*** Begin Patch', ...body, '*** End Patch'].join('\n');
}

async function applyError(text: string, fs: MemoryFileSystem): Promise<ApplyPatchError> {
  try {
    await applyPatch(text, fs);
  } catch (error) {
    if (error instanceof ApplyPatchError) return error;
    throw error;
  }
  throw new Error('expected applyPatch to fail');
}

function bytes(text: string): number[] {
  return [...new TextEncoder().encode(text)];
}

describe('applyPatch: summary and operations', () => {
  it('applies several operations and lists added, modified, deleted in that order', async () => {
    const fs = new MemoryFileSystem({ 'modify.txt': 'line1\nline2\n', 'delete.txt': 'obsolete\n' });
    const summary = await applyPatch(
      patch(
        '*** Delete File: delete.txt',
        '*** Update File: modify.txt',
        '@@',
        '-line2',
        '+changed',
        '*** Add File: nested/new.txt',
        '+created',
      ),
      fs,
    );
    expect(summary).toBe('Success. Updated the following files:\nA nested/new.txt\nM modify.txt\nD delete.txt\n');
    expect(fs.text('modify.txt')).toBe('line1\nchanged\n');
    expect(fs.text('nested/new.txt')).toBe('created\n');
    expect(fs.files.has('delete.txt')).toBe(false);
  });

  it('moves a file and reports the destination', async () => {
    const fs = new MemoryFileSystem({ 'src.txt': 'line\n', 'dst.txt': 'old\n' });
    const text = patch('*** Update File: src.txt', '*** Move to: dst.txt', '@@', '-line', '+line2');
    const summary = await applyPatch(text, fs);
    expect(summary).toBe('Success. Updated the following files:\nM dst.txt\n');
    expect(fs.files.has('src.txt')).toBe(false);
    expect(fs.text('dst.txt')).toBe('line2\n');
  });

  it('refuses a move onto the file itself (Codex would delete it) before applying anything', async () => {
    const fs = new MemoryFileSystem({ 'a.txt': 'x\n', 'b.txt': 'b\n' });
    const error = await applyError(
      patch('*** Delete File: b.txt', '*** Update File: a.txt', '*** Move to: ./a.txt', '@@', '-x', '+y'),
      fs,
    );
    expect(error.kind).toBe('move_onto_itself');
    expect(error.message).toBe(
      "Refused: '*** Move to: ./a.txt' names the file being updated (a.txt), and moving a file onto itself would delete it. " +
        "To edit the file in place, leave out the '*** Move to:' line; nothing was changed",
    );
    expect([fs.text('a.txt'), fs.text('b.txt')]).toEqual(['x\n', 'b\n']);
  });

  it('keeps earlier operations when a later one fails', async () => {
    const fs = new MemoryFileSystem();
    const error = await applyError(
      patch('*** Add File: created.txt', '+hello', '*** Update File: missing.txt', '@@', '-old', '+new'),
      fs,
    );
    expect(error.message).toBe('Failed to read file to update missing.txt: No such file or directory (os error 2)');
    expect(fs.text('created.txt')).toBe('hello\n');
  });
});

describe('applyPatch: error texts', () => {
  it('rejects a patch without operations', async () => {
    const error = await applyError(patch(), new MemoryFileSystem());
    expect(error.message).toBe('No files were modified.');
    expect(error.kind).toBe('no_changes');
  });

  it('passes parse errors through', async () => {
    const error = await applyError(patch('*** Update File: foo.txt'), new MemoryFileSystem());
    expect(error.message).toBe("Invalid patch hunk on line 2: Update file hunk for path 'foo.txt' is empty");
  });

  it('reports lines it cannot find, with all of the chunk’s old lines', async () => {
    const fs = new MemoryFileSystem({ 'modify.txt': 'line1\nline2\n' });
    const error = await applyError(patch('*** Update File: modify.txt', '@@', ' line1', '-missing', '+changed'), fs);
    expect(error.message).toBe('Failed to find expected lines in modify.txt:\nline1\nmissing');
    expect(error.kind).toBe('context_not_found');
    expect(fs.text('modify.txt')).toBe('line1\nline2\n');
  });

  it('reports a missing @@ context line', async () => {
    const fs = new MemoryFileSystem({ 'a.py': 'def f():\n    pass\n' });
    const error = await applyError(patch('*** Update File: a.py', '@@ def g():', '-    pass', '+    return 1'), fs);
    expect(error.message).toBe("Failed to find context 'def g():' in a.py");
  });

  it('refuses to delete a missing file or a folder', async () => {
    const fs = new MemoryFileSystem({ 'dir/foo.txt': 'stable\n' });
    const missing = await applyError(patch('*** Delete File: missing.txt'), fs);
    expect(missing.message).toBe('Failed to delete file missing.txt');
    expect((await applyError(patch('*** Delete File: dir'), fs)).message).toBe('Failed to delete file dir');
    expect(fs.text('dir/foo.txt')).toBe('stable\n');
  });

  it('reports updating a folder with the OS text', async () => {
    const fs = new MemoryFileSystem({ 'dir/foo.txt': 'x\n' });
    const error = await applyError(patch('*** Update File: dir', '@@', '-x', '+y'), fs);
    expect(error.message).toBe('Failed to read file to update dir: Is a directory (os error 21)');
  });

  it('refuses a file that is not UTF-8', async () => {
    const fs = new MemoryFileSystem({ 'bin.dat': new Uint8Array([0xff, 0xfe, 0x0a]) });
    const error = await applyError(patch('*** Update File: bin.dat', '@@', '+x'), fs);
    expect(error.message).toBe('Failed to read file to update bin.dat: stream did not contain valid UTF-8');
  });

  it('reports a failed write', async () => {
    const fs = new MemoryFileSystem({ 'dir/foo.txt': 'x\n' });
    expect((await applyError(patch('*** Add File: dir', '+x'), fs)).message).toBe('Failed to write file dir');
  });
});

describe('applyPatch: locating chunks', () => {
  it('seeks the @@ context line before the chunk', async () => {
    const fs = new MemoryFileSystem({ 'a.py': 'def f():\n    pass\ndef g():\n    pass\n' });
    await applyPatch(patch('*** Update File: a.py', '@@ def g():', '-    pass', '+    return 1'), fs);
    expect(fs.text('a.py')).toBe('def f():\n    pass\ndef g():\n    return 1\n');
  });

  it('applies several chunks in order', async () => {
    const fs = new MemoryFileSystem({ 'multi.txt': 'line1\nline2\nline3\nline4\n' });
    await applyPatch(patch('*** Update File: multi.txt', '@@', '-line2', '+changed2', '@@', '-line4', '+changed4'), fs);
    expect(fs.text('multi.txt')).toBe('line1\nchanged2\nline3\nchanged4\n');
  });

  it('anchors an *** End of File chunk at the end of the file', async () => {
    const fs = new MemoryFileSystem({ 'tail.txt': 'x\ny\nx\n' });
    await applyPatch(patch('*** Update File: tail.txt', '@@', '-x', '+z', '*** End of File'), fs);
    expect(fs.text('tail.txt')).toBe('x\ny\nz\n');
  });

  it('retries without a trailing empty old line (the final newline)', async () => {
    const fs = new MemoryFileSystem({ 'a.txt': 'a\nb\n' });
    await applyPatch(patch('*** Update File: a.txt', '@@', '-b', '+c', ''), fs);
    expect(fs.text('a.txt')).toBe('a\nc\n');
  });

  it('appends a pure addition at the very end, after a final blank line (as Codex 0.169 does)', async () => {
    const fs = new MemoryFileSystem({ 'a.txt': 'a\n\n', 'empty.txt': '' });
    await applyPatch(patch('*** Update File: a.txt', '@@', '+b', '*** Update File: empty.txt', '@@', '+x'), fs);
    expect(fs.text('a.txt')).toBe('a\n\nb\n');
    expect(fs.text('empty.txt')).toBe('x\n');
  });

  it('matches typographic punctuation and keeps the file’s own context lines', async () => {
    const fs = new MemoryFileSystem({ 'a.txt': '  say \u201Chi\u201D \u2014 ok  \nold\n' });
    await applyPatch(patch('*** Update File: a.txt', '@@', ' say "hi" - ok', '-old', '+new'), fs);
    expect(fs.text('a.txt')).toBe('  say \u201Chi\u201D \u2014 ok  \nnew\n');
  });

  it('keeps the change order with repeated lines', async () => {
    const fs = new MemoryFileSystem({ 'r.txt': 'a\nb\n' });
    await applyPatch(patch('*** Update File: r.txt', '@@', '-a', '-b', '+b', '+b', '+a'), fs);
    expect(fs.text('r.txt')).toBe('b\nb\na\n');
  });
});

describe('applyPatch: line endings', () => {
  it('adds a final newline to a file without one', async () => {
    const fs = new MemoryFileSystem({ 'n.txt': 'no newline at end' });
    await applyPatch(patch('*** Update File: n.txt', '@@', '-no newline at end', '+first line', '+second line'), fs);
    expect(fs.text('n.txt')).toBe('first line\nsecond line\n');
  });

  it('writes new lines with the file’s first line ending', async () => {
    const fs = new MemoryFileSystem({ 'crlf.txt': 'one\r\ntwo\r\nthree\r\n' });
    const text = patch('*** Update File: crlf.txt', '@@', '-one', '+uno', '@@', ' two', '+', '+between', ' three');
    await applyPatch(text, fs);
    expect(fs.text('crlf.txt')).toBe('uno\r\ntwo\r\n\r\nbetween\r\nthree\r\n');
  });

  it('leaves untouched lines of a mixed file alone', async () => {
    const fs = new MemoryFileSystem({ 'mixed.txt': 'one\r\ntwo\nthree\r\nfour\n' });
    await applyPatch(patch('*** Update File: mixed.txt', '@@', ' one', ' two', '-three', '+THREE', ' four'), fs);
    expect(fs.text('mixed.txt')).toBe('one\r\ntwo\nTHREE\r\nfour\n');
  });

  it('treats a lone CR as a line ending', async () => {
    const fs = new MemoryFileSystem({ 'cr.txt': 'one\r\ntwo\rthree\nfour\r\n' });
    await applyPatch(patch('*** Update File: cr.txt', '@@', ' one', ' two', '-three', '+THREE', ' four'), fs);
    expect(fs.text('cr.txt')).toBe('one\r\ntwo\rTHREE\r\nfour\r\n');
  });

  it('keeps the ending of the context occurrence the patch names', async () => {
    const fs = new MemoryFileSystem({ 'same.txt': 'same\r\nsame\n' });
    await applyPatch(patch('*** Update File: same.txt', '@@', '-same', ' same'), fs);
    expect(fs.text('same.txt')).toBe('same\n');
  });

  it('terminates a last line moved inward with the preferred ending', async () => {
    const fs = new MemoryFileSystem({ 'n.txt': 'one\r\ntwo' });
    await applyPatch(patch('*** Update File: n.txt', '@@', '-one', '+ONE'), fs);
    expect(fs.text('n.txt')).toBe('ONE\r\ntwo\r\n');
  });

  it('keeps a byte order mark', async () => {
    const fs = new MemoryFileSystem({ 'bom.txt': '\uFEFFa\nb\n' });
    await applyPatch(patch('*** Update File: bom.txt', '@@', '-b', '+c'), fs);
    expect([...fs.files.get('bom.txt')!]).toEqual(bytes('\uFEFFa\nc\n'));
  });
});
