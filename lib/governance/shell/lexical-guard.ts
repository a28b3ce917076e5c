/**
 * What the shell parser (shell-quote) cannot represent exactly, found before it runs.
 *
 * shell-quote tokenizes words and operators the way bash does, but it reads some text differently
 * from bash, and a classifier that trusts its words would then judge a different command from
 * the one bash runs. Each refusal below names a case where the two disagree (or where bash would
 * expand something, which a read-only grant never allows):
 * - a newline is a command separator to bash and plain whitespace to shell-quote (`ls\nrm x`);
 *   other control, format and non-ASCII space characters split or join words differently;
 * - a backtick is command substitution to bash and an ordinary character to shell-quote;
 * - `$` starts an expansion (`$VAR`, `${..}`, `$(..)`, `$((..))`, `$'..'`, `$".."`);
 * - unquoted `*`, `?` and `[` are globs (shell-quote knows only the first two);
 * - unquoted `{` and `}` are brace expansion or a command group; `#` starts a comment;
 * - an unquoted `~` at the start of a word or after `=` or `:` is the home folder;
 * - an unterminated quote or a trailing backslash is a syntax error to bash and silently dropped
 *   by shell-quote;
 * - inside double quotes, bash drops a backslash before a backtick and shell-quote keeps it.
 * Quoting is tracked the way bash does it: nothing is special inside single quotes; inside double
 * quotes `$` and the backtick still are; outside quotes a backslash makes the next character literal.
 */

/** Longer commands are not classified (they wait for a human): a grant is for everyday one-liners. */
export const MAX_CLASSIFIED_COMMAND_CHARS = 4096;

/** Control, format, private-use, unassigned and surrogate code points, and every space but ' ' and tab. */
const INVISIBLE = /[\p{C}\p{Z}\s]/u;
const ALLOWED_BLANKS = new Set([' ', '\t']);

const ESCAPED_BACKTICK = 'it has \\` inside double quotes (bash reads a backtick, the parser a backslash and a backtick)';

/** Where an unquoted `~` is only a letter: right after one of these inside a word (`HEAD~1`). */
const LITERAL_TILDE_AFTER = /[A-Za-z0-9_.@^%+,\/-]/;

function unquotedRefusal(command: string, index: number): string | undefined {
  const char = command[index];
  switch (char) {
    case '$':
      return 'it expands a variable or substitutes a command (`$`)';
    case '`':
      return 'it substitutes a command (backtick)';
    case '*':
    case '?':
    case '[':
      return `it has a glob (\`${char}\`)`;
    case '{':
    case '}':
      return `it has brace expansion or a command group (\`${char}\`)`;
    case '#':
      return 'it has a comment (`#`)';
    case '~':
      return index > 0 && LITERAL_TILDE_AFTER.test(command[index - 1]) ? undefined : 'it expands `~` to a home folder';
    default:
      return undefined;
  }
}

/** Why the command cannot be parsed exactly (a sentence fragment), or undefined when it can. */
export function lexicalRefusal(command: string): string | undefined {
  if (command.length > MAX_CLASSIFIED_COMMAND_CHARS) return `it is longer than ${MAX_CLASSIFIED_COMMAND_CHARS} characters`;
  for (const char of command) {
    if (INVISIBLE.test(char) && !ALLOWED_BLANKS.has(char)) return `it contains the character U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')} (a newline, control, invisible or unusual space character)`;
  }
  let quote: "'" | '"' | undefined;
  for (let i = 0; i < command.length; i++) {
    const char = command[i];
    if (quote === "'") {
      if (char === "'") quote = undefined;
    } else if (quote === '"') {
      if (char === '"') quote = undefined;
      else if (char === '\\' && command[i + 1] === '`') return ESCAPED_BACKTICK;
      else if (char === '\\') i++;
      else if (char === '$' || char === '`') return unquotedRefusal(command, i);
    } else if (char === "'" || char === '"') {
      quote = char;
    } else if (char === '\\') {
      i++;
    } else {
      const refusal = unquotedRefusal(command, i);
      if (refusal) return refusal;
    }
    if (i >= command.length) return 'it ends with a backslash';
  }
  return quote ? `it has an unterminated ${quote === "'" ? 'single' : 'double'} quote` : undefined;
}
