import type { ExecutionEnvironment } from '../../exec/environment.ts';
import { environmentForCall } from '../../exec/client/remote.ts';
import { ToolError } from '../../registry/errors.ts';
import { FnToolExecutor, type ToolExecutor } from '../../registry/executor.ts';
import type { JsonObject } from '../../registry/json.ts';
import { optionalBoolean, requiredString } from './arguments.ts';
import { inEnvironment } from './environment-errors.ts';
import { outputLimitsFor } from './output-limits.ts';
import { readTextFile } from './text-file.ts';
import { vocabularyFor, type EditWording } from './vocabulary.ts';
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

function checkEdit(path: string, edit: Edit, words: EditWording): void {
  if (edit.oldString === '') throw new ToolError('error', words.emptyOld(path));
  if (edit.oldString === edit.newString) throw new ToolError('error', words.unchanged);
}

async function editFile(env: ExecutionEnvironment, args: JsonObject, words: EditWording): Promise<string> {
  const path = requiredString(args, 'file_path');
  const requested = { oldString: requiredString(args, 'old_string'), newString: requiredString(args, 'new_string') };
  const all = optionalBoolean(args, 'replace_all', false);
  checkEdit(path, requested, words);
  const text = await readTextFile(env, path, 'edit', {
    not_found: words.fileNotFound(path),
    is_directory: `${path} is a directory, not a file.`,
    textOnly: words.textOnly,
  });
  const { edit, count } = matchingEdit(text, requested);
  if (count === 0) throw new ToolError('error', words.noMatch(path, requested.oldString));
  if (count > 1 && !all) throw new ToolError('error', words.ambiguous(path, count));
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
    (args, context) => editFile(environmentForCall(env, context), args, vocabularyFor(context).edit),
  );
}
