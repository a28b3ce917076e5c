import type { ExecutionEnvironment } from '../../exec/environment.ts';
import { FnToolExecutor, type ToolExecutor } from '../../registry/executor.ts';
import type { JsonObject } from '../../registry/json.ts';
import { requiredString } from './arguments.ts';
import { inEnvironment } from './environment-errors.ts';
import { outputLimitsFor } from './output-limits.ts';

const INPUT_SCHEMA = {
  type: 'object',
  properties: {
    file_path: {
      type: 'string',
      minLength: 1,
      description:
        'Path of the file to write, relative to the working directory (an absolute path must be inside it). Missing parent folders are created.',
    },
    content: { type: 'string', description: 'The complete new content of the file (UTF-8 text).' },
  },
  required: ['file_path', 'content'],
  additionalProperties: false,
} as const;

const encoder = new TextEncoder();

async function writeFile(env: ExecutionEnvironment, args: JsonObject): Promise<string> {
  const path = requiredString(args, 'file_path');
  const bytes = encoder.encode(requiredString(args, 'content'));
  await inEnvironment(path, () => env.writeFile(path, bytes), {
    is_directory: `${path} is a directory; write_file needs the path of a file.`,
  });
  return `Wrote ${bytes.byteLength} bytes to ${path}`;
}

/** write_file: creates or replaces a whole file. */
export function writeFileTool(env: ExecutionEnvironment): ToolExecutor {
  return new FnToolExecutor(
    {
      name: 'write_file',
      description:
        'Create a file, or replace the whole content of an existing one, creating missing parent folders. ' +
        'To change part of an existing file, prefer the editing tool.',
      input_schema: INPUT_SCHEMA,
      tier: 'write',
      tags: ['coding'],
      output: outputLimitsFor('write_file'),
    },
    (args) => writeFile(env, args),
  );
}
