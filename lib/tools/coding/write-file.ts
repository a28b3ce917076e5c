import type { ExecutionEnvironment } from '../../exec/environment.ts';
import { environmentForCall } from '../../exec/client/remote.ts';
import { FnToolExecutor, type ToolExecutor } from '../../registry/executor.ts';
import type { JsonObject } from '../../registry/json.ts';
import { ToolError } from '../../registry/errors.ts';
import { optionalInteger, requiredString } from './arguments.ts';
import { inEnvironment } from './environment-errors.ts';
import { insertLines } from './insert-lines.ts';
import { outputLimitsFor } from './output-limits.ts';
import { readTextFile } from './text-file.ts';
import { vocabularyFor, type WriteWording } from './vocabulary.ts';
import { plural } from './wording.ts';

const INPUT_SCHEMA = {
  type: 'object',
  properties: {
    file_path: {
      type: 'string',
      minLength: 1,
      description:
        'Path of the file to write, relative to the working directory (an absolute path must be inside it). Missing parent folders are created.',
    },
    content: { type: 'string', description: 'The complete new content of the file (UTF-8 text), or with insert_line the lines to insert.' },
    insert_line: {
      type: 'integer',
      minimum: 0,
      description:
        'Insert content into the existing file after this line (0 = at the top; line numbers as read_file shows them) instead of replacing the file.',
    },
  },
  required: ['file_path', 'content'],
  additionalProperties: false,
} as const;

const encoder = new TextEncoder();

async function writeFile(env: ExecutionEnvironment, args: JsonObject, words: WriteWording): Promise<string> {
  const path = requiredString(args, 'file_path');
  const content = requiredString(args, 'content');
  if (args.insert_line !== undefined) return insertIntoFile(env, path, optionalInteger(args, 'insert_line', 0), content, words);
  const bytes = encoder.encode(content);
  await inEnvironment(path, () => env.writeFile(path, bytes), { is_directory: words.isDirectory(path) });
  return `Wrote ${bytes.byteLength} bytes to ${path}`;
}

/** The file is read and written whole: an insert is a write of the file with the lines added. */
async function insertIntoFile(env: ExecutionEnvironment, path: string, after: number, content: string, words: WriteWording): Promise<string> {
  if (content === '') throw new ToolError('error', words.insertEmpty);
  const text = await readTextFile(env, path, 'edit', {
    not_found: words.insertFileNotFound(path),
    is_directory: words.insertIsDirectory(path),
    textOnly: words.insertTextOnly,
  });
  const updated = encoder.encode(insertLines(path, text, Math.max(0, after), content));
  await inEnvironment(path, () => env.writeFile(path, updated));
  const count = content.split('\n').length - (content.endsWith('\n') ? 1 : 0);
  return after === 0 ? `Inserted ${plural(count, 'line')} at the top of ${path}.` : `Inserted ${plural(count, 'line')} after line ${after} of ${path}.`;
}

/** write_file: creates or replaces a whole file, or inserts lines into one (insert_line). */
export function writeFileTool(env: ExecutionEnvironment): ToolExecutor {
  return new FnToolExecutor(
    {
      name: 'write_file',
      description:
        'Create a file, or replace the whole content of an existing one, creating missing parent folders. ' +
        'With insert_line, insert content as new lines after that line of an existing file instead. ' +
        'To change part of an existing file, prefer the editing tool.',
      input_schema: INPUT_SCHEMA,
      tier: 'write',
      tags: ['coding'],
      output: outputLimitsFor('write_file'),
    },
    (args, context) => writeFile(environmentForCall(env, context), args, vocabularyFor(context).write),
  );
}
