import parseShellWords from 'shell-quote/parse.js';
import { lexicalRefusal } from './lexical-guard.ts';

/** One simple command: its words after quote removal, the program first. */
export type SimpleCommand = readonly string[];

/** What joins two simple commands. */
export type JoiningOperator = '&&' | '||' | ';' | '|';

/**
 * The command line as a list of simple commands and the operators between them (operators[i]
 * joins commands[i] and commands[i + 1]), or why it is not one.
 */
export type ParsedCommandLine = { ok: true; commands: SimpleCommand[]; operators: JoiningOperator[] } | { ok: false; reason: string };

/**
 * The operators that only join commands. Everything else shell-quote reports as an operator is
 * refused: redirections (`>`, `<`, `>>`, `2>&1`, here-docs), background `&`, subshells and
 * process substitution (`(`, `<(`), `|&` and `;;`.
 */
const JOINING_OPERATORS: ReadonlySet<string> = new Set<JoiningOperator>(['&&', '||', ';', '|']);

/**
 * Every `$` expansion shell-quote meets comes back as an object (it would otherwise substitute '').
 * The lexical guard already refuses `$`; this is the second line.
 */
const EXPANSION = { expansion: true };

function isJoiningOperator(token: unknown): token is { op: JoiningOperator } {
  return typeof token === 'object' && token !== null && 'op' in token && JOINING_OPERATORS.has(String(token.op));
}

function tokenRefusal(token: unknown): string | undefined {
  if (typeof token === 'string' || isJoiningOperator(token)) return undefined;
  if (typeof token === 'object' && token !== null && 'comment' in token) return 'it has a comment';
  if (typeof token === 'object' && token !== null && 'op' in token) {
    return token.op === 'glob' ? 'it has a glob' : `it uses the shell operator \`${String(token.op)}\` (redirection, background, subshell or substitution)`;
  }
  return 'it expands a variable or substitutes a command';
}

/**
 * Parses a bash command line that is nothing but plain words joined by `&&`, `||`, `;` and `|`.
 * Anything else (expansions, substitutions, redirections, globs, background jobs, subshells,
 * comments, syntax errors) is refused with the reason: the caller cannot know what it would run.
 */
export function parseCommandLine(command: string): ParsedCommandLine {
  const lexical = lexicalRefusal(command);
  if (lexical) return { ok: false, reason: lexical };
  let tokens: unknown[];
  try {
    tokens = parseShellWords(command, () => EXPANSION);
  } catch (error) {
    return { ok: false, reason: `the shell parser refused it: ${(error as Error).message}` };
  }
  const commands: string[][] = [[]];
  const operators: JoiningOperator[] = [];
  for (const token of tokens) {
    const refusal = tokenRefusal(token);
    if (refusal) return { ok: false, reason: refusal };
    if (typeof token === 'string') {
      commands[commands.length - 1].push(token);
    } else if (isJoiningOperator(token)) {
      if (commands[commands.length - 1].length === 0) return { ok: false, reason: 'an operator has no command before it' };
      operators.push(token.op);
      commands.push([]);
    }
  }
  if (commands[commands.length - 1].length === 0) return { ok: false, reason: commands.length === 1 ? 'it has no command' : 'an operator has no command after it' };
  return { ok: true, commands, operators };
}
