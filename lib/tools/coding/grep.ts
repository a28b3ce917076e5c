import type { ExecutionEnvironment, GrepMatch, GrepOptions } from '../../exec/environment.ts';
import { ToolError } from '../../registry/errors.ts';
import { FnToolExecutor, type ToolExecutor } from '../../registry/executor.ts';
import type { JsonObject } from '../../registry/json.ts';
import { optionalBoolean, optionalInteger, optionalString, requiredString } from './arguments.ts';
import { inEnvironment } from './environment-errors.ts';
import { outputLimitsFor } from './output-limits.ts';
import { describeLocation } from './wording.ts';

export const GREP_DEFAULT_MAX_RESULTS = 100;
export const GREP_MAX_RESULTS = 1000;

const INPUT_SCHEMA = {
  type: 'object',
  properties: {
    pattern: { type: 'string', minLength: 1, description: 'Regular expression to search for in each line of the files.' },
    path: {
      type: 'string',
      minLength: 1,
      default: '.',
      description: 'File or directory to search, relative to the working directory (default: the working directory).',
    },
    glob_filter: { type: 'string', minLength: 1, description: 'Only search files whose path matches this glob, e.g. "*.py" or "src/**/*.ts".' },
    case_insensitive: { type: 'boolean', default: false, description: 'Ignore letter case (default false).' },
    max_results: {
      type: 'integer',
      minimum: 1,
      maximum: GREP_MAX_RESULTS,
      default: GREP_DEFAULT_MAX_RESULTS,
      description: `Maximum number of matching lines to return (default ${GREP_DEFAULT_MAX_RESULTS}).`,
    },
  },
  required: ['pattern'],
  additionalProperties: false,
} as const;

/**
 * Catches the usual mistakes (an unbalanced "(" or "[", a leading "*") before a round trip to the
 * environment. JavaScript syntax without flags is lenient, so a pattern the environment's own
 * engine accepts is rarely refused here.
 */
function checkPattern(pattern: string): void {
  try {
    new RegExp(pattern);
  } catch (error) {
    const reason = (error as Error).message.split(': ').pop() ?? 'invalid syntax';
    throw new ToolError(
      'error',
      `Invalid regex pattern "${pattern}": ${reason}. Escape characters such as ( ) [ ] { } . * + ? | \\ with a backslash to match them literally.`,
    );
  }
}

function noMatchesMessage(pattern: string, path: string, globFilter: string | undefined): string {
  const files = globFilter === undefined ? '' : ` (files matching ${globFilter})`;
  return `No matches found for pattern "${pattern}" in ${describeLocation(path)}${files}.`;
}

/** `path:line:text`, one match per line; a note when more matches exist than were asked for. */
export function formatMatches(matches: readonly GrepMatch[], maxResults: number): string {
  const lines = matches.slice(0, maxResults).map(({ path, line, text }) => `${path}:${line}:${text.replace(/\r$/, '')}`);
  if (matches.length <= maxResults) return lines.join('\n');
  return (
    `${lines.join('\n')}\n\n[Showing the first ${maxResults} matches; there are more. ` +
    'Narrow the search with path or glob_filter, or raise max_results.]'
  );
}

async function grep(env: ExecutionEnvironment, args: JsonObject): Promise<string> {
  const pattern = requiredString(args, 'pattern');
  const path = optionalString(args, 'path') ?? '.';
  const globFilter = optionalString(args, 'glob_filter');
  const maxResults = optionalInteger(args, 'max_results', GREP_DEFAULT_MAX_RESULTS);
  checkPattern(pattern);
  // One more than asked for: the only way to know that the list was cut.
  const options: GrepOptions = { case_insensitive: optionalBoolean(args, 'case_insensitive', false), max_results: maxResults + 1 };
  if (globFilter !== undefined) options.glob_filter = globFilter;
  const matches = await inEnvironment(path, () => env.grep(pattern, path, options), { not_found: `Path not found: ${path}` });
  if (matches.length === 0) return noMatchesMessage(pattern, path, globFilter);
  return formatMatches(matches, maxResults);
}

/** grep: regex search over file contents. */
export function grepTool(env: ExecutionEnvironment): ToolExecutor {
  return new FnToolExecutor(
    {
      name: 'grep',
      description:
        'Search file contents with a regular expression. Returns matching lines as "path:line:text", one per line. ' +
        'Use path and glob_filter to narrow the search.',
      input_schema: INPUT_SCHEMA,
      tier: 'read',
      tags: ['coding'],
      output: outputLimitsFor('grep'),
    },
    (args) => grep(env, args),
  );
}
