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
