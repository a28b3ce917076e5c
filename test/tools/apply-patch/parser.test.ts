import { describe, expect, it } from 'vitest';
import { ApplyPatchError, parsePatch } from '../../../lib/tools/apply-patch/index.ts';

function parseError(patch: string): ApplyPatchError {
  try {
    parsePatch(patch);
  } catch (error) {
    if (error instanceof ApplyPatchError) return error;
    throw error;
  }
  throw new Error('expected parsePatch to fail');
}

const VALID_HEADERS =
  "Valid hunk headers: '*** Add File: {path}', '*** Delete File: {path}', '*** Update File: {path}'";
const LINE_PREFIXES = "Every line should start with ' ' (context line), '+' (added line), or '-' (removed line)";

describe('parsePatch: envelope errors', () => {
  it('requires the begin marker first', () => {
    expect(parseError('bad').message).toBe("Invalid patch: The first line of the patch must be '*** Begin Patch'");
  });

  it('requires the end marker last', () => {
    const error = parseError('*** Begin Patch\nbad');
    expect(error.message).toBe("Invalid patch: The last line of the patch must be '*** End Patch'");
    expect(error.kind).toBe('invalid_patch');
  });

  it('reports an empty text as a missing end marker, like Codex', () => {
    expect(parseError('').message).toBe("Invalid patch: The last line of the patch must be '*** End Patch'");
    expect(parseError('*** Begin Patch').message).toBe(
      "Invalid patch: The last line of the patch must be '*** End Patch'",
    );
  });

  it('accepts a patch with no operations (applying it fails later)', () => {
    expect(parsePatch('*** Begin Patch\n*** End Patch').operations).toEqual([]);
  });

  it('tolerates whitespace around the markers and the whole text', () => {
    const parsed = parsePatch('\n *** Begin Patch \n*** Add File: foo\n+hi\n *** End Patch\n\n');
    expect(parsed.operations).toEqual([{ type: 'add', path: 'foo', contents: 'hi\n' }]);
  });

  it("unwraps a heredoc passed as the patch (<<'EOF' ... EOF)", () => {
    const parsed = parsePatch("<<'EOF'\n*** Begin Patch\n*** Add File: foo\n+hi\n*** End Patch\nEOF\n");
    expect(parsed.operations).toEqual([{ type: 'add', path: 'foo', contents: 'hi\n' }]);
  });

  it('reads CRLF patch text as plain lines', () => {
    const parsed = parsePatch('*** Begin Patch\r\n*** Update File: a\r\n@@\r\n-x\r\n+y\r\n*** End Patch\r\n');
    expect(parsed.operations).toEqual([
      {
        type: 'update',
        path: 'a',
        movePath: null,
        chunks: [
          {
            changeContext: null,
            lines: [
              { kind: 'delete', text: 'x' },
              { kind: 'add', text: 'y' },
            ],
            oldLines: ['x'],
            newLines: ['y'],
            isEndOfFile: false,
          },
        ],
      },
    ]);
  });
});

describe('parsePatch: operations', () => {
  it('parses add, delete, and update with a move and a context header', () => {
    const parsed = parsePatch(
      [
        '*** Begin Patch',
        '*** Add File: path/add.py',
        '+abc',
        '+def',
        '*** Delete File: path/delete.py',
        '*** Update File: path/update.py',
        '*** Move to: path/update2.py',
        '@@ def f():',
        '-    pass',
        '+    return 123',
        '*** End Patch',
      ].join('\n'),
    );
    expect(parsed.operations).toEqual([
      { type: 'add', path: 'path/add.py', contents: 'abc\ndef\n' },
      { type: 'delete', path: 'path/delete.py' },
      {
        type: 'update',
        path: 'path/update.py',
        movePath: 'path/update2.py',
        chunks: [
          {
            changeContext: 'def f():',
            lines: [
              { kind: 'delete', text: '    pass' },
              { kind: 'add', text: '    return 123' },
            ],
            oldLines: ['    pass'],
            newLines: ['    return 123'],
            isEndOfFile: false,
          },
        ],
      },
    ]);
  });

  it('lets the first chunk omit its @@ header', () => {
    const [update] = parsePatch('*** Begin Patch\n*** Update File: f.py\n import foo\n+bar\n*** End Patch').operations;
    expect(update).toMatchObject({
      chunks: [{ changeContext: null, oldLines: ['import foo'], newLines: ['import foo', 'bar'] }],
    });
  });

  it('ends an update at the next operation header', () => {
    const operations = parsePatch(
      '*** Begin Patch\n*** Update File: file.py\n@@\n+line\n*** Add File: other.py\n+content\n*** End Patch',
    ).operations;
    expect(operations.map((operation) => operation.type)).toEqual(['update', 'add']);
    expect(operations[1]).toEqual({ type: 'add', path: 'other.py', contents: 'content\n' });
  });

  it('splits chunks at @@ and marks *** End of File', () => {
    const [update] = parsePatch(
      '*** Begin Patch\n*** Update File: a\n@@ one\n-a\n+b\n@@\n x\n-y\n*** End of File\n*** End Patch',
    ).operations;
    expect(update).toMatchObject({
      chunks: [
        { changeContext: 'one', oldLines: ['a'], newLines: ['b'], isEndOfFile: false },
        { changeContext: null, oldLines: ['x', 'y'], newLines: ['x'], isEndOfFile: true },
      ],
    });
  });

  it('reads a blank line where a chunk would start as a chunk line, and skips blank lines only after End of File', () => {
    const [update] = parsePatch(
      '*** Begin Patch\n*** Update File: a\n\n@@\n-a\n*** End of File\n  \n@@\n+b\n*** End Patch',
    ).operations;
    expect(update).toMatchObject({
      chunks: [
        { oldLines: [''], newLines: [''], isEndOfFile: false },
        { oldLines: ['a'], newLines: [], isEndOfFile: true },
        { oldLines: [], newLines: ['b'], isEndOfFile: false },
      ],
    });
  });

  it('does not skip a whitespace-only line between chunks that did not end the file', () => {
    expect(() => parsePatch('*** Begin Patch\n*** Update File: a\n@@\n-a\n\t\n@@\n+b\n*** End Patch')).toThrow(
      "Invalid patch hunk on line 5: Expected update hunk to start with a @@ context marker, got: '\t'",
    );
  });

  it('reads an empty line inside a chunk as an empty context line', () => {
    const [update] = parsePatch('*** Begin Patch\n*** Update File: a\n@@\n-a\n\n+b\n*** End Patch').operations;
    expect(update).toMatchObject({ chunks: [{ oldLines: ['a', ''], newLines: ['', 'b'] }] });
  });

  it('adds an empty file when Add File has no lines', () => {
    expect(parsePatch('*** Begin Patch\n*** Add File: empty.txt\n*** End Patch').operations).toEqual([
      { type: 'add', path: 'empty.txt', contents: '' },
    ]);
  });
});

describe('parsePatch: hunk errors (exact Codex texts)', () => {
  it('rejects an unknown header', () => {
    const error = parseError('*** Begin Patch\n*** Frobnicate File: foo\n*** End Patch');
    expect(error.message).toBe(
      `Invalid patch hunk on line 2: '*** Frobnicate File: foo' is not a valid hunk header. ${VALID_HEADERS}`,
    );
    expect(error.kind).toBe('invalid_hunk');
    expect(error.lineNumber).toBe(2);
  });

  it('counts lines across earlier operations', () => {
    expect(parseError('*** Begin Patch\n*** Add File: a\n+x\nbogus\n*** End Patch').message).toBe(
      `Invalid patch hunk on line 4: 'bogus' is not a valid hunk header. ${VALID_HEADERS}`,
    );
  });

  it('rejects an update without chunks', () => {
    expect(parseError('*** Begin Patch\n*** Update File: foo.txt\n*** End Patch').message).toBe(
      "Invalid patch hunk on line 2: Update file hunk for path 'foo.txt' is empty",
    );
  });

  it('rejects a chunk header with nothing after it', () => {
    expect(parseError('*** Begin Patch\n*** Update File: a\n@@\n*** End Patch').message).toBe(
      'Invalid patch hunk on line 4: Update hunk does not contain any lines',
    );
  });

  it('rejects a chunk that is only *** End of File', () => {
    expect(parseError('*** Begin Patch\n*** Update File: a\n@@\n*** End of File\n*** End Patch').message).toBe(
      'Invalid patch hunk on line 4: Update hunk does not contain any lines',
    );
  });

  it('rejects a chunk starting with a line that is not a diff line', () => {
    expect(parseError('*** Begin Patch\n*** Update File: a\n@@\nfoo\n*** End Patch').message).toBe(
      `Invalid patch hunk on line 4: Unexpected line found in update hunk: 'foo'. ${LINE_PREFIXES}`,
    );
  });

  it('requires @@ on every chunk after the first', () => {
    expect(parseError('*** Begin Patch\n*** Update File: a\n@@\n-x\n+y\nfoo\n*** End Patch').message).toBe(
      "Invalid patch hunk on line 6: Expected update hunk to start with a @@ context marker, got: 'foo'",
    );
  });
});
