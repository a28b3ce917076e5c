import type { ExecutionEnvironment } from '../../exec/environment.ts';
import { environmentForCall } from '../../exec/client/remote.ts';
import { ToolError } from '../../registry/errors.ts';
import { FnToolExecutor, type ToolExecutor } from '../../registry/executor.ts';
import type { JsonObject } from '../../registry/json.ts';
import { optionalInteger, requiredString } from './arguments.ts';
import { listDirectory } from './directory-listing.ts';
import { outputLimitsFor } from './output-limits.ts';
import { readTextFile } from './text-file.ts';
import { vocabularyFor, type ReadWording } from './vocabulary.ts';

export const READ_FILE_DEFAULT_LIMIT = 2000;
/** Line numbers take at least this many columns, so typical files line up the same way on every read. */
const MIN_NUMBER_WIDTH = 4;

const INPUT_SCHEMA = {
  type: 'object',
  properties: {
    file_path: {
      type: 'string',
      minLength: 1,
      description:
        'Path of the file to read, relative to the working directory (an absolute path must be inside it). ' +
        'A directory is listed instead (its files and folders, two levels deep).',
    },
    offset: {
      type: 'integer',
      minimum: 1,
      default: 1,
      description: 'Line number to start reading from (1-based). Use it with limit to read a large file in parts.',
    },
    limit: {
      type: 'integer',
      minimum: 1,
      default: READ_FILE_DEFAULT_LIMIT,
      description: `Maximum number of lines to return (default ${READ_FILE_DEFAULT_LIMIT}).`,
    },
  },
  required: ['file_path'],
  additionalProperties: false,
} as const;

/** Lines as the model sees them: no trailing empty line after a final newline, no CR of CRLF, no BOM. */
export function displayLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.replace(/^\uFEFF/, '').split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines.map((line) => (line.endsWith('\r') ? line.slice(0, -1) : line));
}

/** `   7 | text`: numbers right-aligned to the widest one shown (at least 4 columns). */
export function numberLines(lines: readonly string[], firstLine: number): string {
  const width = Math.max(MIN_NUMBER_WIDTH, String(firstLine + lines.length - 1).length);
  return lines.map((line, index) => `${String(firstLine + index).padStart(width)} | ${line}`).join('\n');
}

function formatWindow(path: string, lines: readonly string[], offset: number, limit: number, words: ReadWording): string {
  const total = lines.length;
  if (total === 0) return `[File is empty: ${path}]`;
  if (offset > total) throw new ToolError('error', words.pastEnd(path, offset, total));
  const shown = lines.slice(offset - 1, offset - 1 + limit);
  const last = offset + shown.length - 1;
  const body = numberLines(shown, offset);
  if (last === total) return body;
  return `${body}\n\n[Showing lines ${offset}-${last} of ${total}. ${words.readOn(last + 1)}]`;
}

async function readFile(env: ExecutionEnvironment, args: JsonObject, words: ReadWording): Promise<string> {
  const path = requiredString(args, 'file_path');
  const offset = optionalInteger(args, 'offset', 1);
  const limit = optionalInteger(args, 'limit', READ_FILE_DEFAULT_LIMIT);
  let text: string;
  try {
    text = await readTextFile(env, path, 'read', { not_found: words.notFound(path), textOnly: words.textOnly });
  } catch (error) {
    if (!isDirectoryError(error)) throw error;
    if (args.offset !== undefined || args.limit !== undefined) throw new ToolError('error', words.rangeOfDirectory(path));
    return listDirectory(env, path, words.seeMoreEntries);
  }
  return formatWindow(path, displayLines(text), Math.max(1, offset), Math.max(1, limit), words);
}

function isDirectoryError(error: unknown): boolean {
  return error instanceof ToolError && error.details?.environment_error === 'is_directory';
}

/** read_file: a text file's lines, numbered, from `offset` for `limit` lines; or a directory's listing. */
export function readFileTool(env: ExecutionEnvironment): ToolExecutor {
  return new FnToolExecutor(
    {
      name: 'read_file',
      description:
        'Read a text file. Returns its lines numbered as "   N | text" (the number and " | " are not part of the file). ' +
        `Reads up to ${READ_FILE_DEFAULT_LIMIT} lines from offset; for longer files the output says how to read the rest. ` +
        'Lists a directory (two levels deep, hidden items left out). Fails on missing and binary files.',
      input_schema: INPUT_SCHEMA,
      tier: 'read',
      tags: ['coding'],
      output: outputLimitsFor('read_file'),
    },
    (args, context) => readFile(environmentForCall(env, context), args, vocabularyFor(context).read),
  );
}
