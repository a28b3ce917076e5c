import type { ExecutionEnvironment } from '../../exec/environment.ts';
import { environmentForCall } from '../../exec/remote.ts';
import { ToolError } from '../../registry/errors.ts';
import { FnToolExecutor, type ToolExecutor } from '../../registry/executor.ts';
import type { JsonObject } from '../../registry/json.ts';
import { optionalBoolean, requiredString } from './arguments.ts';
import { inEnvironment } from './environment-errors.ts';
import { outputLimitsFor } from './output-limits.ts';
import { readTextFile } from './text-file.ts';
import { plural } from './wording.ts';

const INPUT_SCHEMA = {
  type: 'object',
  properties: {
    file_path: {
      type: 'string',
      minLength: 1,
      description: 'Path of the file to edit, relative to the working directory (an absolute path must be inside it).',
    },
    old_string: {
      type: 'string',
      description:
        'The exact text to replace, including whitespace and indentation (without read_file\'s line-number prefixes). ' +
        'It must occur exactly once unless replace_all is true.',
    },
    new_string: { type: 'string', description: 'The text to put in its place (must differ from old_string).' },
    replace_all: {
      type: 'boolean',
      default: false,
      description: 'Replace every occurrence of old_string instead of requiring exactly one (default false).',
    },
  },
  required: ['file_path', 'old_string', 'new_string'],
  additionalProperties: false,
} as const;

const encoder = new TextEncoder();

interface Edit {
  oldString: string;
  newString: string;
}

/** Non-overlapping occurrences, left to right (the same ones a replacement would change). */
function countOccurrences(text: string, search: string): number {
  return text.split(search).length - 1;
}

/**
 * Models never send CR, so an edit of a CRLF file spanning lines would never match: when the
 * exact text is absent, retry with its line breaks written as CRLF (and write the new text the
 * same way), which keeps the file CRLF.
 */
function matchingEdit(text: string, edit: Edit): { edit: Edit; count: number } {
  const count = countOccurrences(text, edit.oldString);
  if (count > 0 || !text.includes('\r\n') || !edit.oldString.includes('\n')) return { edit, count };
  const toCrlf = (s: string) => s.replace(/\r?\n/g, '\r\n');
  const crlf = { oldString: toCrlf(edit.oldString), newString: toCrlf(edit.newString) };
  return { edit: crlf, count: countOccurrences(text, crlf.oldString) };
}

/** Slicing and joining rather than String.replace, whose `$&`-style patterns would rewrite new_string. */
function replace(text: string, { oldString, newString }: Edit, all: boolean): string {
  if (all) return text.split(oldString).join(newString);
  const at = text.indexOf(oldString);
  return text.slice(0, at) + newString + text.slice(at + oldString.length);
}

function checkEdit(path: string, edit: Edit): void {
  if (edit.oldString === '') {
    throw new ToolError(
      'error',
      `old_string is empty. Copy the exact text to replace from ${path}; to add text, include the neighbouring lines in both old_string and new_string. To create a file, use write_file.`,
    );
  }
  if (edit.oldString === edit.newString) {
    throw new ToolError('error', 'old_string and new_string are identical, so there is nothing to change. Provide the new text in new_string.');
  }
}

function notFoundMessage(path: string, oldString: string): string {
  return (
    `old_string was not found in ${path}. It must match the file exactly, including whitespace, indentation and line breaks; ` +
    `read the file again with read_file and copy the text (without the line-number prefixes). Searched for:\n${oldString}`
  );
}

function ambiguousMessage(path: string, count: number): string {
  return (
    `old_string occurs ${count} times in ${path}, but replace_all is false. ` +
    'Add more surrounding lines to old_string so that it matches exactly one place, or set replace_all to true to replace every occurrence.'
  );
}

async function editFile(env: ExecutionEnvironment, args: JsonObject): Promise<string> {
  const path = requiredString(args, 'file_path');
  const requested = { oldString: requiredString(args, 'old_string'), newString: requiredString(args, 'new_string') };
  const all = optionalBoolean(args, 'replace_all', false);
  checkEdit(path, requested);
  const text = await readTextFile(env, path, 'edit', {
    not_found: `File not found: ${path}. edit_file only changes existing files; use write_file to create one.`,
    is_directory: `${path} is a directory, not a file.`,
  });
  const { edit, count } = matchingEdit(text, requested);
  if (count === 0) throw new ToolError('error', notFoundMessage(path, requested.oldString));
  if (count > 1 && !all) throw new ToolError('error', ambiguousMessage(path, count));
  const updated = encoder.encode(replace(text, edit, all));
  await inEnvironment(path, () => env.writeFile(path, updated));
  return `Replaced ${plural(count, 'occurrence')} in ${path}.`;
}

/** edit_file: exact search and replace (Claude Code and gemini-cli style). */
export function editFileTool(env: ExecutionEnvironment): ToolExecutor {
  return new FnToolExecutor(
    {
      name: 'edit_file',
      description:
        'Replace exact text in an existing file. old_string must match the file exactly (whitespace and indentation included) ' +
        'and occur exactly once, unless replace_all is true. Read the file first. The rest of the file is left byte for byte as it was.',
      input_schema: INPUT_SCHEMA,
      tier: 'write',
      tags: ['coding'],
      output: outputLimitsFor('edit_file'),
    },
    (args, context) => editFile(environmentForCall(env, context), args),
  );
}
