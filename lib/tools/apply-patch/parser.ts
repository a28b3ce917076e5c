/**
 * Parsing V4A patch text (the `apply_patch` format) into file operations, following Codex's
 * lenient parser: markers may be padded with whitespace, the first chunk of an update may omit
 * its `@@` header, and a patch wrapped in a `<<EOF ... EOF` heredoc is unwrapped. Error texts
 * are the ones Codex's apply_patch prints, since models are trained on them. The corners follow
 * Codex 0.169's binary, measured by test/tools/apply-patch/differential.test.ts.
 */
import { trimWhitespace, trimWhitespaceEnd } from './seek-sequence.ts';

const BEGIN_PATCH = '*** Begin Patch';
const END_PATCH = '*** End Patch';
const ADD_FILE = '*** Add File: ';
const DELETE_FILE = '*** Delete File: ';
const UPDATE_FILE = '*** Update File: ';
const MOVE_TO = '*** Move to: ';
const END_OF_FILE = '*** End of File';
const CONTEXT_HEADER = '@@ ';
const EMPTY_CONTEXT_HEADER = '@@';
const EMPTY_CHUNK = 'Update hunk does not contain any lines';

export type ApplyPatchErrorKind =
  | 'invalid_patch'
  | 'invalid_hunk'
  | 'no_changes'
  | 'context_not_found'
  | 'io_error'
  | 'move_onto_itself';

/** Any failure of apply_patch; `message` is the exact text the model should see. */
export class ApplyPatchError extends Error {
  readonly kind: ApplyPatchErrorKind;
  /** 1-based line of the patch, for `invalid_hunk`. */
  readonly lineNumber?: number;
  /** For `invalid_hunk`: what is wrong at that line (the message without its location), for callers that locate it their own way. */
  readonly reason?: string;

  constructor(kind: ApplyPatchErrorKind, message: string, options?: { lineNumber?: number; reason?: string; cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ApplyPatchError';
    this.kind = kind;
    if (options?.lineNumber !== undefined) this.lineNumber = options.lineNumber;
    if (options?.reason !== undefined) this.reason = options.reason;
  }
}

export interface AddFileOperation {
  type: 'add';
  path: string;
  /** Each `+` line followed by `\n`. */
  contents: string;
}

export interface DeleteFileOperation {
  type: 'delete';
  path: string;
}

export type ChunkLineKind = 'context' | 'delete' | 'add';

export interface ChunkLine {
  kind: ChunkLineKind;
  text: string;
}

export interface UpdateChunk {
  /** Text after `@@ `: a line (usually a class or function header) to seek before the chunk. */
  changeContext: string | null;
  /** The chunk's lines in patch order; kept so context lines can keep their identity. */
  lines: ChunkLine[];
  /** Context and removed lines: what must be found in the file. */
  oldLines: string[];
  /** Context and added lines: what replaces them. */
  newLines: string[];
  /** The chunk ended with `*** End of File`: its old lines must sit at the end of the file. */
  isEndOfFile: boolean;
}

export interface UpdateFileOperation {
  type: 'update';
  path: string;
  movePath: string | null;
  chunks: UpdateChunk[];
}

export type PatchOperation = AddFileOperation | DeleteFileOperation | UpdateFileOperation;

export interface ParsedPatch {
  operations: PatchOperation[];
}

function invalidPatch(message: string): ApplyPatchError {
  return new ApplyPatchError('invalid_patch', `Invalid patch: ${message}`);
}

function invalidHunk(message: string, lineNumber: number): ApplyPatchError {
  return new ApplyPatchError('invalid_hunk', `Invalid patch hunk on line ${lineNumber}: ${message}`, {
    lineNumber,
    reason: message,
  });
}

/**
 * Codex's patch lines: CRLF made LF, then Rust's `str::lines` (split on `\n`, drop one trailing
 * `\r` per line, no empty last line), so `+x\r\r\n` adds `x`.
 */
function splitPatchLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.replaceAll('\r\n', '\n').split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines.map((line) => (line.endsWith('\r') ? line.slice(0, -1) : line));
}

/** The lines between the begin and end markers, or the reason there are none. */
function checkBoundaries(lines: string[]): string[] {
  const first = lines.length > 0 ? trimWhitespace(lines[0]) : undefined;
  const last = lines.length > 0 ? trimWhitespace(lines[lines.length - 1]) : undefined;
  if (first === BEGIN_PATCH && last === END_PATCH && lines.length >= 2) return lines.slice(1, -1);
  if (first !== undefined && first !== BEGIN_PATCH) {
    throw invalidPatch("The first line of the patch must be '*** Begin Patch'");
  }
  throw invalidPatch("The last line of the patch must be '*** End Patch'");
}

/**
 * Some models pass the heredoc of a shell invocation (`<<'EOF'` ... `EOF`) as the patch itself;
 * Codex accepts that when the plain check fails.
 */
function checkBoundariesLenient(lines: string[]): string[] {
  try {
    return checkBoundaries(lines);
  } catch (error) {
    const first = lines[0];
    const last = lines[lines.length - 1];
    const heredoc = first === '<<EOF' || first === "<<'EOF'" || first === '<<"EOF"';
    if (lines.length >= 4 && heredoc && last.endsWith('EOF')) return checkBoundaries(lines.slice(1, -1));
    throw error;
  }
}

export function parsePatch(patchText: string): ParsedPatch {
  const body = checkBoundariesLenient(splitPatchLines(trimWhitespace(patchText)));
  const operations: PatchOperation[] = [];
  // Line 1 is `*** Begin Patch`.
  let lineNumber = 2;
  let rest = body;
  while (rest.length > 0) {
    // A doubled `*** End Patch` is tolerated; an end marker with more after it is not the end.
    if (isEndPatch(rest[0])) {
      if (rest.length > 1) throw invalidPatch("The last line of the patch must be '*** End Patch'");
      break;
    }
    const { operation, consumed } = parseOperation(rest, lineNumber);
    operations.push(operation);
    lineNumber += consumed;
    rest = rest.slice(consumed);
  }
  return { operations };
}

function isEndPatch(line: string): boolean {
  return trimWhitespace(line) === END_PATCH;
}

/** A line that ends an update: the next operation's header or the end marker (padding allowed). */
function endsUpdate(line: string): boolean {
  const trimmed = trimWhitespace(line);
  return trimmed === END_PATCH || [ADD_FILE, DELETE_FILE, UPDATE_FILE].some((marker) => trimmed.startsWith(marker));
}

function parseOperation(lines: string[], lineNumber: number): { operation: PatchOperation; consumed: number } {
  const header = trimWhitespace(lines[0]);
  if (header.startsWith(ADD_FILE)) return parseAddFile(header.slice(ADD_FILE.length), lines);
  if (header.startsWith(DELETE_FILE)) {
    return { operation: { type: 'delete', path: header.slice(DELETE_FILE.length) }, consumed: 1 };
  }
  if (header.startsWith(UPDATE_FILE)) return parseUpdateFile(header.slice(UPDATE_FILE.length), lines, lineNumber);
  throw invalidHunk(
    `'${header}' is not a valid hunk header. ` +
      "Valid hunk headers: '*** Add File: {path}', '*** Delete File: {path}', '*** Update File: {path}'",
    lineNumber,
  );
}

function parseAddFile(path: string, lines: string[]): { operation: AddFileOperation; consumed: number } {
  let contents = '';
  let consumed = 1;
  // The file's lines run until the first line that does not start with `+`.
  while (consumed < lines.length && lines[consumed].startsWith('+')) {
    contents += `${lines[consumed].slice(1)}\n`;
    consumed++;
  }
  return { operation: { type: 'add', path, contents }, consumed };
}

function parseUpdateFile(
  path: string,
  lines: string[],
  lineNumber: number,
): { operation: UpdateFileOperation; consumed: number } {
  let consumed = 1;
  let movePath: string | null = null;
  // Whitespace after the new path is dropped (not before it: `*** Move to:  a` names ` a`).
  const moveLine = lines.length > 1 ? trimWhitespaceEnd(lines[1]) : '';
  if (moveLine.startsWith(MOVE_TO)) {
    movePath = moveLine.slice(MOVE_TO.length);
    consumed++;
  }

  // Every line up to the next operation belongs to a chunk: a blank line is an empty context
  // line (Codex skips blank lines only after `*** End of File`, see parseChunk).
  const chunks: UpdateChunk[] = [];
  while (consumed < lines.length && !endsUpdate(lines[consumed])) {
    const parsed = parseChunk(lines.slice(consumed), lineNumber + consumed, chunks.length === 0);
    chunks.push(parsed.chunk);
    consumed += parsed.consumed;
  }

  if (chunks.length === 0) throw invalidHunk(`Update file hunk for path '${path}' is empty`, lineNumber);
  return { operation: { type: 'update', path, movePath, chunks }, consumed };
}

/**
 * Reads the optional `@@` header; only the first chunk of an update may go without one. Codex
 * ignores whitespace after the header (`@@  ` is an empty header, `@@ foo\t` seeks `foo`).
 */
function parseChunkHeader(
  line: string,
  lineNumber: number,
  allowMissingHeader: boolean,
): { changeContext: string | null; consumed: number } {
  const header = trimWhitespaceEnd(line);
  if (header === EMPTY_CONTEXT_HEADER) return { changeContext: null, consumed: 1 };
  if (header.startsWith(CONTEXT_HEADER)) return { changeContext: header.slice(CONTEXT_HEADER.length), consumed: 1 };
  if (!allowMissingHeader) {
    throw invalidHunk(`Expected update hunk to start with a @@ context marker, got: '${line}'`, lineNumber);
  }
  return { changeContext: null, consumed: 0 };
}

function parseChunk(
  lines: string[],
  lineNumber: number,
  allowMissingHeader: boolean,
): { chunk: UpdateChunk; consumed: number } {
  const header = parseChunkHeader(lines[0], lineNumber, allowMissingHeader);
  if (header.consumed >= lines.length) throw invalidHunk(EMPTY_CHUNK, lineNumber + 1);

  const chunkLines: ChunkLine[] = [];
  let isEndOfFile = false;
  let consumed = 0;
  for (const line of lines.slice(header.consumed)) {
    if (trimWhitespaceEnd(line) === END_OF_FILE) {
      if (consumed === 0) throw invalidHunk(EMPTY_CHUNK, lineNumber + 1);
      isEndOfFile = true;
      consumed++;
      break;
    }
    const chunkLine = parseChunkLine(line);
    if (chunkLine === null) {
      if (consumed === 0) {
        throw invalidHunk(
          `Unexpected line found in update hunk: '${line}'. ` +
            "Every line should start with ' ' (context line), '+' (added line), or '-' (removed line)",
          lineNumber + 1,
        );
      }
      // Anything else (`@@`, `*** ...`) starts the next chunk or operation.
      break;
    }
    chunkLines.push(chunkLine);
    consumed++;
  }

  // Blank lines after `*** End of File` are skipped.
  if (isEndOfFile) {
    while (header.consumed + consumed < lines.length && trimWhitespace(lines[header.consumed + consumed]) === '') consumed++;
  }

  const chunk: UpdateChunk = {
    changeContext: header.changeContext,
    lines: chunkLines,
    oldLines: chunkLines.filter((line) => line.kind !== 'add').map((line) => line.text),
    newLines: chunkLines.filter((line) => line.kind !== 'delete').map((line) => line.text),
    isEndOfFile,
  };
  return { chunk, consumed: consumed + header.consumed };
}

/** A diff line, or null when the line is not one. An empty line is an empty context line. */
function parseChunkLine(line: string): ChunkLine | null {
  if (line === '') return { kind: 'context', text: '' };
  const text = line.slice(1);
  switch (line[0]) {
    case ' ':
      return { kind: 'context', text };
    case '+':
      return { kind: 'add', text };
    case '-':
      return { kind: 'delete', text };
    default:
      return null;
  }
}
