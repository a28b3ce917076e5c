/**
 * The corners where toolgate's apply_patch used to part from Codex's (issue 11), each with the
 * exact outcome Codex 0.169 gives: toolgate (over LocalExecutionEnvironment in a temp folder)
 * must give it, and so must the Codex binary itself, so an expectation here is Codex's and not
 * a guess. The two deliberate differences (a move onto itself, a path outside the root) say what
 * each side does.
 */
import { describe, expect, it } from 'vitest';
import { findCodexBinary, runCodex, runToolgate, type Outcome } from '../../../scripts/apply-patch-differential-lib.ts';
import type { PatchCase } from '../../../scripts/apply-patch-cases.ts';

function patch(...body: string[]): string {
  return ['*** Begin Patch', ...body, '*** End Patch'].join('\n');
}

interface Expected {
  ok: boolean;
  /** toolgate's message (Codex's wording; Codex prints paths absolute). */
  message: string;
  /** Every file under the root afterwards, as text. */
  files: Record<string, string>;
}

interface Corner {
  name: string;
  files: Record<string, string>;
  patch: string;
  expected: Expected;
  /** Where Codex does otherwise on purpose: what it does. */
  codex?: Omit<Expected, 'message'>;
}

const SUCCESS = 'Success. Updated the following files:\n';

const CORNERS: Corner[] = [
  {
    name: 'a pure addition goes after a final blank line',
    files: { 'a.txt': 'a\n\n' },
    patch: patch('*** Update File: a.txt', '@@', '+b'),
    expected: { ok: true, message: `${SUCCESS}M a.txt\n`, files: { 'a.txt': 'a\n\nb\n' } },
  },
  {
    name: 'an added line next to a final blank line is kept',
    files: { 'a.txt': 'a\n\n' },
    patch: patch('*** Update File: a.txt', '@@', ' a', '+b', ' '),
    expected: { ok: true, message: `${SUCCESS}M a.txt\n`, files: { 'a.txt': 'a\nb\n\n' } },
  },
  {
    name: 'an added line after a final blank context line is kept',
    files: { 'a.txt': 'a\n\n' },
    patch: patch('*** Update File: a.txt', '@@', ' ', '+b'),
    expected: { ok: true, message: `${SUCCESS}M a.txt\n`, files: { 'a.txt': 'a\n\nb\n' } },
  },
  {
    name: 'an End of File chunk cannot overlap the chunk before',
    files: { 'a.txt': 'a\nb\n' },
    patch: patch('*** Update File: a.txt', '@@', ' a', '-b', '+B', '@@', '-b', '+C', '*** End of File'),
    expected: { ok: false, message: 'Failed to find expected lines in a.txt:\nb', files: { 'a.txt': 'a\nb\n' } },
  },
  {
    name: 'whitespace after the Move to path is dropped',
    files: { 'a.txt': 'a\n' },
    patch: patch('*** Update File: a.txt', '*** Move to: b.txt \t', '@@', '-a', '+A'),
    expected: { ok: true, message: `${SUCCESS}M b.txt\n`, files: { 'b.txt': 'A\n' } },
  },
  {
    name: 'whitespace after an @@ header leaves an empty header',
    files: { 'a.txt': 'x\n@@\nx\n' },
    patch: patch('*** Update File: a.txt', '@@ \t', '-x', '+X'),
    expected: { ok: true, message: `${SUCCESS}M a.txt\n`, files: { 'a.txt': 'X\n@@\nx\n' } },
  },
  {
    name: 'whitespace after End of File still ends the file',
    files: { 'a.txt': 'a\nb\n', 'c.txt': 'c\n' },
    patch: patch('*** Update File: a.txt', '@@', '-b', '+B', '*** End of File  ', '*** Delete File: c.txt'),
    expected: { ok: true, message: `${SUCCESS}M a.txt\nD c.txt\n`, files: { 'a.txt': 'a\nB\n' } },
  },
  {
    name: 'a tab before an operation path is dropped from the path (the summary shows it)',
    files: { 'a.txt': 'a\n' },
    patch: patch('*** Update File: \ta.txt', '@@', '-a', '+A'),
    expected: { ok: true, message: `${SUCCESS}M \ta.txt\n`, files: { 'a.txt': 'A\n' } },
  },
  {
    name: 'a tab in place of the space after the marker is not a header',
    files: { 'a.txt': 'a\n' },
    patch: patch('*** Update File:\ta.txt', '@@', '-a', '+A'),
    expected: {
      ok: false,
      message:
        "Invalid patch hunk on line 2: '*** Update File:\ta.txt' is not a valid hunk header. " +
        "Valid hunk headers: '*** Add File: {path}', '*** Delete File: {path}', '*** Update File: {path}'",
      files: { 'a.txt': 'a\n' },
    },
  },
  {
    name: 'a blank line at the start of a hunk is an empty context line',
    files: { 'a.txt': 'a\nb\n' },
    patch: patch('*** Update File: a.txt', '', '-a', '+A'),
    expected: { ok: false, message: 'Failed to find expected lines in a.txt:\n\na', files: { 'a.txt': 'a\nb\n' } },
  },
  {
    name: 'a blank line at the start of a hunk matches a blank line',
    files: { 'a.txt': 'a\n\nb\n' },
    patch: patch('*** Update File: a.txt', '', '-b', '+B'),
    expected: { ok: true, message: `${SUCCESS}M a.txt\n`, files: { 'a.txt': 'a\n\nB\n' } },
  },
  {
    name: 'a hunk after a pure-addition hunk is sought from the top',
    files: { 'a.txt': 'a\nb\nc\n' },
    patch: patch('*** Update File: a.txt', '@@', '+end', '@@', ' a', '-b', '+B'),
    expected: { ok: true, message: `${SUCCESS}M a.txt\n`, files: { 'a.txt': 'a\nB\nc\nend\n' } },
  },
  {
    name: 'a CRLF patch: one more CR at a line end is dropped',
    files: { 'a.txt': 'a\n' },
    patch: '*** Begin Patch\r\n*** Update File: a.txt\r\n@@\r\n a\r\n+b\r\r\n*** End Patch\r\n',
    expected: { ok: true, message: `${SUCCESS}M a.txt\n`, files: { 'a.txt': 'a\nb\n' } },
  },
  {
    name: 'a doubled End Patch is tolerated',
    files: { 'a.txt': 'a\n' },
    patch: patch('*** Delete File: a.txt', '*** End Patch'),
    expected: { ok: true, message: `${SUCCESS}D a.txt\n`, files: {} },
  },
  {
    name: 'an End Patch with operations after it is refused whole',
    files: { 'a.txt': 'a\n' },
    patch: patch('*** Delete File: a.txt', '*** End Patch', '*** Add File: b.txt', '+b'),
    expected: { ok: false, message: "Invalid patch: The last line of the patch must be '*** End Patch'", files: { 'a.txt': 'a\n' } },
  },
  {
    name: 'typographic punctuation in the file matches ASCII in the patch',
    files: { 'a.txt': 'say(\u201chi\u201d) \u2013 ok\n' },
    patch: patch('*** Update File: a.txt', '@@', '-say("hi") - ok', '+say("bye")'),
    expected: { ok: true, message: `${SUCCESS}M a.txt\n`, files: { 'a.txt': 'say("bye")\n' } },
  },
  {
    name: 'CRLF lines keep their endings and added lines take the first one',
    files: { 'a.txt': 'a\r\nb\r\nc\n' },
    patch: patch('*** Update File: a.txt', '@@', ' a', '-b', '+B', '+B2'),
    expected: { ok: true, message: `${SUCCESS}M a.txt\n`, files: { 'a.txt': 'a\r\nB\r\nB2\r\nc\n' } },
  },
  {
    name: 'Add File overwrites an existing file',
    files: { 'a.txt': 'old\n' },
    patch: patch('*** Add File: a.txt', '+new'),
    expected: { ok: true, message: `${SUCCESS}A a.txt\n`, files: { 'a.txt': 'new\n' } },
  },
  {
    name: 'deliberate: a move onto itself is refused (Codex deletes the file and reports success)',
    files: { 'a.txt': 'a\n' },
    patch: patch('*** Update File: a.txt', '*** Move to: a.txt', '@@', '-a', '+A'),
    expected: {
      ok: false,
      message:
        "Refused: '*** Move to: a.txt' names the file being updated (a.txt), and moving a file onto itself would delete it. " +
        "To edit the file in place, leave out the '*** Move to:' line; nothing was changed",
      files: { 'a.txt': 'a\n' },
    },
    codex: { ok: true, files: {} },
  },
  {
    name: 'deliberate: a write outside the root is refused with its reason (Codex writes it)',
    files: { 'a.txt': 'a\n' },
    patch: patch('*** Add File: ../outside.txt', '+x'),
    expected: {
      ok: false,
      message:
        'Failed to write file ../outside.txt: "../outside.txt" is outside the environment root: use a path relative to the root, such as "src/index.ts"',
      files: { 'a.txt': 'a\n' },
    },
    codex: { ok: true, files: { 'a.txt': 'a\n', '../outside.txt': 'x\n' } },
  },
];

/** The files of an outcome's tree as text, by path relative to the root (`../` for the base). */
function filesOf(outcome: Outcome): Record<string, string> {
  const files: Record<string, string> = {};
  for (const [path, bytes] of Object.entries(outcome.tree)) {
    if (path.endsWith('/')) continue;
    files[path.startsWith('root/') ? path.slice('root/'.length) : `../${path}`] = Buffer.from(bytes, 'latin1').toString('utf8');
  }
  return files;
}

function caseOf(corner: Corner): PatchCase {
  return { id: 0, kind: corner.name, files: corner.files, folders: [], patch: corner.patch };
}

describe('apply_patch corners, as Codex applies them', () => {
  for (const corner of CORNERS) {
    it(`toolgate: ${corner.name}`, async () => {
      const outcome = await runToolgate(caseOf(corner));
      expect({ ok: outcome.ok, message: outcome.message, files: filesOf(outcome) }).toEqual(corner.expected);
    });
  }
});

describe("the same corners through Codex's own binary", () => {
  const codex = findCodexBinary();
  for (const corner of CORNERS) {
    it(`codex: ${corner.name}`, async () => {
      const outcome = await runCodex(codex, caseOf(corner));
      const expected = corner.codex ?? { ok: corner.expected.ok, files: corner.expected.files };
      expect({ ok: outcome.ok, files: filesOf(outcome) }).toEqual(expected);
    });
  }
});
