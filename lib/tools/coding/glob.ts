import type { ExecutionEnvironment, GlobMatch } from '../../exec/environment.ts';
import { environmentForCall } from '../../exec/client/remote.ts';
import { FnToolExecutor, type ToolExecutor } from '../../registry/executor.ts';
import type { JsonObject } from '../../registry/json.ts';
import { optionalString, requiredString } from './arguments.ts';
import { inEnvironment } from './environment-errors.ts';
import { outputLimitsFor } from './output-limits.ts';
import { describeLocation } from './wording.ts';

const INPUT_SCHEMA = {
  type: 'object',
  properties: {
    pattern: {
      type: 'string',
      minLength: 1,
      description: 'Glob pattern for file paths, e.g. "**/*.ts" or "src/*.json" ("**" matches any number of folders).',
    },
    path: {
      type: 'string',
      minLength: 1,
      default: '.',
      description: 'Directory to search in, relative to the working directory (default: the working directory).',
    },
  },
  required: ['pattern'],
  additionalProperties: false,
} as const;

/** Newest first, whatever order the environment used (a stable sort keeps its order for ties). */
export function newestFirst(matches: readonly GlobMatch[]): GlobMatch[] {
  return [...matches].sort((a, b) => b.mtime_ms - a.mtime_ms);
}

async function glob(env: ExecutionEnvironment, args: JsonObject, signal: AbortSignal): Promise<string> {
  const pattern = requiredString(args, 'pattern');
  const path = optionalString(args, 'path') ?? '.';
  // The call's signal stops the walk when the gateway stops waiting for it.
  const matches = await inEnvironment(path, () => env.glob(pattern, path, { signal }), { not_found: `Path not found: ${path}` });
  if (matches.length === 0) return `No files found matching "${pattern}" in ${describeLocation(path)}.`;
  return newestFirst(matches)
    .map((match) => match.path)
    .join('\n');
}

/** glob: file paths by name pattern, most recently modified first. */
export function globTool(env: ExecutionEnvironment): ToolExecutor {
  return new FnToolExecutor(
    {
      name: 'glob',
      description: 'Find files whose path matches a glob pattern. Returns one path per line, most recently modified first.',
      input_schema: INPUT_SCHEMA,
      tier: 'read',
      tags: ['coding'],
      output: outputLimitsFor('glob'),
    },
    (args, context) => glob(environmentForCall(env, context), args, context.signal),
  );
}
