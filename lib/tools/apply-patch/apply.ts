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

async function writeText(fs: PatchFileSystem, path: string, text: string): Promise<void> {
  try {
    await fs.writeFile(path, encoder.encode(text));
  } catch (cause) {
    throw new ApplyPatchError('io_error', `Failed to write file ${path}`, { cause });
  }
}

async function addFile(operation: AddFileOperation, fs: PatchFileSystem): Promise<void> {
  await writeText(fs, operation.path, operation.contents);
}

async function deleteFile(path: string, fs: PatchFileSystem): Promise<void> {
  const failure = (cause?: unknown) => new ApplyPatchError('io_error', `Failed to delete file ${path}`, { cause });
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
  const source = await readTextToUpdate(fs, operation.path);
  const updated = joinLines(applyChunks(source, operation.path, operation.chunks));
  const destination = operation.movePath ?? operation.path;
  await writeText(fs, destination, updated);
  // Codex writes the target, then removes the original; a move onto itself must not delete it.
  if (operation.movePath !== null && operation.movePath !== operation.path) {
    try {
      await fs.deleteFile(operation.path);
    } catch (cause) {
      throw new ApplyPatchError('io_error', `Failed to remove original ${operation.path}`, { cause });
    }
  }
  return destination;
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
    const replacement =
      chunk.oldLines.length === 0
        ? appendAtEnd(texts, chunk, source.preferredEnding)
        : locate(source, texts, chunk, lineIndex);
    if (replacement === null) {
      throw new ApplyPatchError(
        'context_not_found',
        `Failed to find expected lines in ${path}:\n${chunk.oldLines.join('\n')}`,
      );
    }
    replacements.push(replacement);
    lineIndex = replacement.start + replacement.oldLength;
  }
  // Stable, so chunks inserting at the same place keep their patch order.
  return replacements.sort((a, b) => a.start - b.start);
}

/** A chunk with nothing to find goes at the end of the file (before a final blank line, as Codex does). */
function appendAtEnd(texts: readonly string[], chunk: UpdateChunk, ending: LineEnding): Replacement {
  const start = texts.length > 0 && texts[texts.length - 1] === '' ? texts.length - 1 : texts.length;
  return { start, oldLength: 0, lines: chunk.newLines.map((text) => ({ text, ending })) };
}

function locate(
  source: SourceText,
  texts: readonly string[],
  chunk: UpdateChunk,
  lineIndex: number,
): Replacement | null {
  let diff: readonly ChunkLine[] = chunk.lines;
  let found = seekSequence(texts, chunk.oldLines, lineIndex, chunk.isEndOfFile);
  // A trailing empty old line often stands for the file's final newline, which is not a line
  // here: retry without it (and without a matching empty new line).
  if (found === null && chunk.oldLines[chunk.oldLines.length - 1] === '') {
    diff = withoutFinalBlank(chunk.lines);
    const pattern = diff.filter((line) => line.kind !== 'add').map((line) => line.text);
    found = seekSequence(texts, pattern, lineIndex, chunk.isEndOfFile);
  }
  if (found === null) return null;
  return buildReplacement(source, diff, found);
}

function withoutFinalBlank(lines: readonly ChunkLine[]): readonly ChunkLine[] {
  const lastOld = lines.findLastIndex((line) => line.kind !== 'add');
  const lastNew = lines.findLastIndex((line) => line.kind !== 'delete');
  const dropNew = lastNew >= 0 && lines[lastNew].text === '';
  return lines.filter((_, index) => index !== lastOld && !(dropNew && index === lastNew));
}

/**
 * Walks the chunk over the matched lines: context lines keep the file's own line (text and
 * ending, even when matched fuzzily), removed lines go, added lines take the preferred ending.
 */
function buildReplacement(source: SourceText, diff: readonly ChunkLine[], start: number): Replacement {
  const lines: SourceLine[] = [];
  let cursor = start;
  for (const line of diff) {
    if (line.kind === 'add') {
      lines.push({ text: line.text, ending: source.preferredEnding });
    } else {
      if (line.kind === 'context') lines.push(source.lines[cursor]);
      cursor++;
    }
  }
  return { start, oldLength: cursor - start, lines };
}
