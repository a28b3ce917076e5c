/**
 * Applying parsed patch operations to a file system, with Codex's semantics: operations run in
 * order and stop at the first failure (earlier ones stay applied), Add File and Move overwrite,
 * an updated file always ends with a newline, and every untouched line keeps its own line ending.
 */
import type { ExecutionEnvironment } from '../../exec/environment.ts';
import { ApplyPatchError, parsePatch } from './parser.ts';
import type { AddFileOperation, ChunkLine, PatchOperation, UpdateChunk, UpdateFileOperation } from './parser.ts';
import { seekSequence } from './seek-sequence.ts';

/** The slice of the ExecutionEnvironment port that apply_patch needs. */
export type PatchFileSystem = Pick<ExecutionEnvironment, 'readFile' | 'writeFile' | 'deleteFile' | 'stat'>;

/** Parses and applies `patchText`; returns Codex's success summary or throws ApplyPatchError. */
export async function applyPatch(patchText: string, fs: PatchFileSystem): Promise<string> {
  return applyOperations(parsePatch(patchText).operations, fs);
}

interface AffectedPaths {
  added: string[];
  modified: string[];
  deleted: string[];
}

export async function applyOperations(operations: readonly PatchOperation[], fs: PatchFileSystem): Promise<string> {
  if (operations.length === 0) throw new ApplyPatchError('no_changes', 'No files were modified.');
  refuseMovesOntoThemselves(operations);
  const affected: AffectedPaths = { added: [], modified: [], deleted: [] };
  for (const operation of operations) {
    if (operation.type === 'add') {
      await addFile(operation, fs);
      affected.added.push(operation.path);
    } else if (operation.type === 'delete') {
      await deleteFile(operation.path, fs);
      affected.deleted.push(operation.path);
    } else {
      affected.modified.push(await updateFile(operation, fs));
    }
  }
  return formatSummary(affected);
}

/**
 * The path Codex touches for a path in a patch: it drops tabs and carriage returns anywhere in
 * it (`*** Add File:\u0020\tnotes.md` writes notes.md), while its summary shows the path as written.
 */
function fileSystemPath(path: string): string {
  return path.replace(/[\t\r]/g, '');
}

/** The path's `/`-separated names with `.`, empty names and `name/..` taken out, by text alone. */
function lexicalPath(path: string): string {
  const names: string[] = [];
  for (const name of path.split('/')) {
    if (name === '' || name === '.') continue;
    if (name === '..' && names.length > 0 && names[names.length - 1] !== '..') names.pop();
    else names.push(name);
  }
  return `${path.startsWith('/') ? '/' : ''}${names.join('/')}`;
}

/**
 * Codex writes a moved file to its new path and then removes the old one, so a move onto the
 * same file deletes it while reporting success. toolgate refuses such a patch before applying
 * any of it (a deliberate difference; the paths are compared by text).
 */
function refuseMovesOntoThemselves(operations: readonly PatchOperation[]): void {
  for (const operation of operations) {
    if (operation.type !== 'update' || operation.movePath === null) continue;
    if (lexicalPath(fileSystemPath(operation.movePath)) !== lexicalPath(fileSystemPath(operation.path))) continue;
    throw new ApplyPatchError(
      'move_onto_itself',
      `Refused: '*** Move to: ${operation.movePath}' names the file being updated (${operation.path}), ` +
        "and moving a file onto itself would delete it. To edit the file in place, leave out the '*** Move to:' line; nothing was changed",
    );
  }
}

/** Codex lists added, then modified, then deleted paths, whatever the patch order. */
function formatSummary({ added, modified, deleted }: AffectedPaths): string {
  const lines = [
    'Success. Updated the following files:',
    ...added.map((path) => `A ${path}`),
    ...modified.map((path) => `M ${path}`),
    ...deleted.map((path) => `D ${path}`),
  ];
  return `${lines.join('\n')}\n`;
}

const encoder = new TextEncoder();

/** Environment codes that mean the path itself was refused (not an OS failure). */
const REFUSED_PATH_CODES: readonly unknown[] = ['outside_root', 'invalid_path', 'invalid_request'];

/**
 * `: <why>` when the environment refused the path (outside the root, say), so the model learns
 * the reason as it does for reads; empty for other failures, which keep Codex's bare wording.
 * Recognised by name and code, since an error rebuilt by an RPC client would fail `instanceof`.
 */
function refusalReason(cause: unknown): string {
  if (!(cause instanceof Error) || cause.name !== 'ExecEnvironmentError') return '';
  return REFUSED_PATH_CODES.includes((cause as Error & { code?: unknown }).code) ? `: ${cause.message}` : '';
}

async function writeText(fs: PatchFileSystem, path: string, text: string): Promise<void> {
  try {
    await fs.writeFile(path, encoder.encode(text));
  } catch (cause) {
    throw new ApplyPatchError('io_error', `Failed to write file ${path}${refusalReason(cause)}`, { cause });
  }
}

async function addFile(operation: AddFileOperation, fs: PatchFileSystem): Promise<void> {
  await writeText(fs, fileSystemPath(operation.path), operation.contents);
}

async function deleteFile(displayPath: string, fs: PatchFileSystem): Promise<void> {
  const path = fileSystemPath(displayPath);
  const failure = (cause?: unknown) =>
    new ApplyPatchError('io_error', `Failed to delete file ${path}${refusalReason(cause)}`, { cause });
  try {
    // Codex deletes with remove_file, which refuses directories; the port's deleteFile might not.
    const stat = await fs.stat(path);
    if (stat === null || stat.type === 'directory') throw failure();
    await fs.deleteFile(path);
  } catch (cause) {
    throw cause instanceof ApplyPatchError ? cause : failure(cause);
  }
}

/** Applies the chunks, writes the result (to the move target if any); returns the path to report. */
async function updateFile(operation: UpdateFileOperation, fs: PatchFileSystem): Promise<string> {
  const path = fileSystemPath(operation.path);
  const source = await readTextToUpdate(fs, path);
  const updated = joinLines(applyChunks(source, path, operation.chunks));
  if (operation.movePath === null) {
    await writeText(fs, path, updated);
    return operation.path;
  }
  // Codex writes the target, then removes the original (a move onto itself was refused up front).
  await writeText(fs, fileSystemPath(operation.movePath), updated);
  try {
    await fs.deleteFile(path);
  } catch (cause) {
    throw new ApplyPatchError('io_error', `Failed to remove original ${path}${refusalReason(cause)}`, { cause });
  }
  return operation.movePath;
}

// ---------------------------------------------------------------------------------------------
// Reading

/** The OS texts Rust puts after Codex's "Failed to read file to update PATH: ". */
const OS_ERROR_TEXT: Record<string, string> = {
  not_found: 'No such file or directory (os error 2)',
  is_directory: 'Is a directory (os error 21)',
  not_directory: 'Not a directory (os error 20)',
};

function describeReadFailure(cause: unknown): string {
  const code = typeof cause === 'object' && cause !== null ? (cause as { code?: unknown }).code : undefined;
  if (typeof code === 'string' && code in OS_ERROR_TEXT) return OS_ERROR_TEXT[code];
  return cause instanceof Error ? cause.message : String(cause);
}

async function readTextToUpdate(fs: PatchFileSystem, path: string): Promise<string> {
  const failure = (reason: string, cause: unknown) =>
    new ApplyPatchError('io_error', `Failed to read file to update ${path}: ${reason}`, { cause });
  let bytes: Uint8Array;
  try {
    bytes = await fs.readFile(path);
  } catch (cause) {
    throw failure(describeReadFailure(cause), cause);
  }
  try {
    // Codex reads into a Rust String: invalid UTF-8 is an error, and a BOM is kept as text.
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch (cause) {
    throw failure('stream did not contain valid UTF-8', cause);
  }
}

// ---------------------------------------------------------------------------------------------
// Lines with their own endings

type LineEnding = '\n' | '\r\n' | '\r';

interface SourceLine {
  text: string;
  /** null only for a last line without a terminator. */
  ending: LineEnding | null;
}

interface SourceText {
  lines: SourceLine[];
  /** The first terminator in the file (LF when none): used for every line the patch writes. */
  preferredEnding: LineEnding;
}

/** Splits on LF, CRLF and lone CR, remembering each line's terminator. */
function splitLines(contents: string): SourceText {
  const lines: SourceLine[] = [];
  const terminator = /\r\n|\r|\n/g;
  let start = 0;
  for (let match = terminator.exec(contents); match !== null; match = terminator.exec(contents)) {
    lines.push({ text: contents.slice(start, match.index), ending: match[0] as LineEnding });
    start = match.index + match[0].length;
  }
  if (start < contents.length) lines.push({ text: contents.slice(start), ending: null });
  return { lines, preferredEnding: lines[0]?.ending ?? '\n' };
}

function joinLines(lines: readonly SourceLine[]): string {
  return lines.map((line) => line.text + (line.ending ?? '')).join('');
}

// ---------------------------------------------------------------------------------------------
// Chunks

/** Replace `oldLength` lines at `start` (indices into the original file) with `lines`. */
interface Replacement {
  start: number;
  oldLength: number;
  lines: SourceLine[];
}

function applyChunks(contents: string, path: string, chunks: readonly UpdateChunk[]): SourceLine[] {
  const source = splitLines(contents);
  const replacements = computeReplacements(source, path, chunks);
  const lines = inOrderWithoutOverlap(replacements) ? spliceForward(source.lines, replacements) : spliceBottomUp(source.lines, replacements);
  // Updates always end with a newline; an unterminated line moved inward needs one too.
  return lines.map((line) => (line.ending === null ? { ...line, ending: source.preferredEnding } : line));
}

/** The usual case: each replacement starts at or after the end of the one before. */
function inOrderWithoutOverlap(replacements: readonly Replacement[]): boolean {
  return replacements.every((r, i) => i === 0 || r.start >= replacements[i - 1].start + replacements[i - 1].oldLength);
}

/** One pass over the file, copying each line once (a 10 MB file with 100 hunks stays fast). */
function spliceForward(lines: readonly SourceLine[], replacements: readonly Replacement[]): SourceLine[] {
  const out: SourceLine[] = [];
  let next = 0;
  for (const { start, oldLength, lines: segment } of replacements) {
    for (let i = next; i < start; i++) out.push(lines[i]);
    out.push(...segment);
    next = start + oldLength;
  }
  for (let i = next; i < lines.length; i++) out.push(lines[i]);
  return out;
}

/** Codex's own order, for replacements that overlap or come out of order: last first, each on the result of the next. */
function spliceBottomUp(lines: readonly SourceLine[], replacements: readonly Replacement[]): SourceLine[] {
  let result = [...lines];
  for (const { start, oldLength, lines: segment } of [...replacements].reverse()) {
    result = [...result.slice(0, start), ...segment, ...result.slice(start + oldLength)];
  }
  return result;
}

function computeReplacements(source: SourceText, path: string, chunks: readonly UpdateChunk[]): Replacement[] {
  const texts = source.lines.map((line) => line.text);
  const replacements: Replacement[] = [];
  let lineIndex = 0;
  for (const chunk of chunks) {
    if (chunk.changeContext !== null) {
      const found = seekSequence(texts, [chunk.changeContext], lineIndex, false);
      if (found === null) {
        throw new ApplyPatchError('context_not_found', `Failed to find context '${chunk.changeContext}' in ${path}`);
      }
      lineIndex = found + 1;
    }
    if (chunk.oldLines.length === 0) {
      // Nothing to find: Codex appends, and the next chunk is still sought from here.
      replacements.push(appendAtEnd(texts, chunk, source.preferredEnding));
      continue;
    }
    const match = locate(texts, chunk, lineIndex);
    if (match === null) {
      throw new ApplyPatchError(
        'context_not_found',
        `Failed to find expected lines in ${path}:\n${chunk.oldLines.join('\n')}`,
      );
    }
    replacements.push(...editsOf(match.diff, match.start, source.preferredEnding));
    lineIndex = match.start + match.oldLength;
  }
  // Stable, so edits at the same place keep their patch order.
  return replacements.sort((a, b) => a.start - b.start);
}

/** A chunk with nothing to find goes at the very end of the file, after a final blank line too. */
function appendAtEnd(texts: readonly string[], chunk: UpdateChunk, ending: LineEnding): Replacement {
  return { start: texts.length, oldLength: 0, lines: chunk.newLines.map((text) => ({ text, ending })) };
}

interface Match {
  start: number;
  /** The lines matched: context and removed. */
  oldLength: number;
  /** The chunk's lines as matched (without a final blank line the file did not have). */
  diff: readonly ChunkLine[];
}

function locate(texts: readonly string[], chunk: UpdateChunk, lineIndex: number): Match | null {
  let diff: readonly ChunkLine[] = chunk.lines;
  let pattern = chunk.oldLines;
  let found = seekSequence(texts, pattern, lineIndex, chunk.isEndOfFile);
  // A trailing empty old line often stands for the file's final newline, which is not a line
  // here: retry without it (and without a matching empty new line).
  if (found === null && pattern[pattern.length - 1] === '') {
    diff = withoutFinalBlank(chunk.lines);
    pattern = diff.filter((line) => line.kind !== 'add').map((line) => line.text);
    found = seekSequence(texts, pattern, lineIndex, chunk.isEndOfFile);
  }
  return found === null ? null : { start: found, oldLength: pattern.length, diff };
}

/**
 * The chunk without its last old line (an empty one), and without its last new line when that
 * is empty too, as Codex trims its old and new lines apart: a context line that stays in the
 * new lines only becomes an added line.
 */
function withoutFinalBlank(lines: readonly ChunkLine[]): readonly ChunkLine[] {
  const lastOld = lines.findLastIndex((line) => line.kind !== 'add');
  const lastNew = lines.findLastIndex((line) => line.kind !== 'delete');
  const dropNew = lastNew >= 0 && lines[lastNew].text === '';
  return lines.flatMap((line, index): ChunkLine[] => {
    const inOld = line.kind !== 'add' && index !== lastOld;
    const inNew = line.kind !== 'delete' && !(dropNew && index === lastNew);
    if (inOld && inNew) return [line];
    if (inOld) return [{ kind: 'delete', text: line.text }];
    return inNew ? [{ kind: 'add', text: line.text }] : [];
  });
}

/**
 * The chunk's edits over the matched lines, one per run of removed and added lines between
 * context lines, as Codex makes them: context lines are not rewritten (they keep the file's
 * own text and ending, even when matched fuzzily), and an edit lands exactly where its run is,
 * which decides the order when another chunk inserts at the same place.
 */
function editsOf(diff: readonly ChunkLine[], start: number, ending: LineEnding): Replacement[] {
  const edits: Replacement[] = [];
  let cursor = start;
  let run: Replacement | null = null;
  for (const line of diff) {
    if (line.kind === 'context') {
      run = null;
      cursor++;
      continue;
    }
    if (run === null) {
      run = { start: cursor, oldLength: 0, lines: [] };
      edits.push(run);
    }
    if (line.kind === 'delete') {
      run.oldLength++;
      cursor++;
    } else {
      run.lines.push({ text: line.text, ending });
    }
  }
  return edits;
}
