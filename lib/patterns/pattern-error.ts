/**
 * A pattern the linear-time engine refuses: not a valid ECMA-262 regular expression, a construct
 * that needs a backtracking engine, or a program too large to run in bounded time. The message
 * says what was wrong and what to write instead.
 */
export class PatternError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PatternError';
  }
}

/** A pattern as messages quote it: JSON, and cut after 80 characters (a message must stay readable). */
export function quotePattern(source: string): string {
  return JSON.stringify(source.length > 80 ? `${source.slice(0, 79)}…` : source);
}
