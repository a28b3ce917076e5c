import type { ExecutionEnvironment, GrepMatch, GrepOptions } from '../../exec/environment.ts';
import { environmentForCall } from '../../exec/client/remote.ts';
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
 * Catches the usual mistakes (an unbalanced "(" or "[", a quantifier with nothing to repeat, a
 * trailing backslash) before a round trip to the environment. It only scans brackets: the
 * pattern is never compiled or run here, and the environment's ripgrep, whose syntax (Rust's
 * regex) differs from JavaScript's, judges everything else.
 */
function checkPattern(pattern: string): void {
  const mistake = patternMistake(pattern);
  if (mistake === undefined) return;
  throw new ToolError(
    'error',
    `Invalid regex pattern "${pattern}": ${mistake}. Escape characters such as ( ) [ ] { } . * + ? | \\ with a backslash to match them literally.`,
  );
}

/** What is wrong with the pattern's brackets, or undefined when they balance. */
export function patternMistake(pattern: string): string | undefined {
  if (/^[*+?]/.test(pattern)) return 'Nothing to repeat';
  let groups = 0;
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i];
    if (char === '\\') {
      if (++i >= pattern.length) return '\\ at end of pattern';
    } else if (char === '[') {
      const end = classEnd(pattern, i);
      if (end < 0) return 'Unterminated character class';
      i = end;
    } else if (char === '(') {
      groups++;
    } else if (char === ')') {
      if (groups === 0) return "Unmatched ')'";
      groups--;
    }
  }
  return groups > 0 ? 'Unterminated group' : undefined;
}

/** Where the class opened at `start` closes, or -1. A "]" first is literal; "[" opens a nested class, "[:name:]" a POSIX one. */
function classEnd(pattern: string, start: number): number {
  let i = start + 1;
  if (pattern[i] === '^') i++;
  if (pattern[i] === ']') i++;
  for (; i < pattern.length; i++) {
    const char = pattern[i];
    if (char === '\\') {
      i++;
    } else if (char === '[' && pattern[i + 1] === ':' && pattern.indexOf(':]', i + 2) > 0) {
      i = pattern.indexOf(':]', i + 2) + 1;
    } else if (char === '[') {
      i = classEnd(pattern, i);
      if (i < 0) return -1;
    } else if (char === ']') {
      return i;
    }
  }
  return -1;
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

async function grep(env: ExecutionEnvironment, args: JsonObject, signal: AbortSignal): Promise<string> {
  const pattern = requiredString(args, 'pattern');
  const path = optionalString(args, 'path') ?? '.';
  const globFilter = optionalString(args, 'glob_filter');
  const maxResults = optionalInteger(args, 'max_results', GREP_DEFAULT_MAX_RESULTS);
  checkPattern(pattern);
  // One more than asked for: the only way to know that the list was cut.
  // The call's signal stops the search when the gateway stops waiting for it.
  const options: GrepOptions = { case_insensitive: optionalBoolean(args, 'case_insensitive', false), max_results: maxResults + 1, signal };
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
    (args, context) => grep(environmentForCall(env, context), args, context.signal),
  );
}
