import { parseCommandLine, type SimpleCommand } from './parse-command.ts';
import { READ_ONLY_PROGRAMS } from './read-only-programs.ts';

/** Whether a shell command only reads, and if not, why (for logs and tests; the model never sees it). */
export type CommandClassification = { read_only: true } | { read_only: false; reason: string };

/** `NAME=value cmd` runs cmd with a changed environment (`GIT_DIR=..`, `PAGER=..`, `LD_PRELOAD=..`). */
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*\+?=/;

function simpleCommandRefusal(words: SimpleCommand): string | undefined {
  const [program, ...args] = words;
  if (ASSIGNMENT.test(program)) return `it assigns a variable (${program.slice(0, program.indexOf('=') + 1)}...)`;
  const check = READ_ONLY_PROGRAMS.get(program);
  if (!check) return `"${program}" is not a known read-only program`;
  const refusal = check(args);
  return refusal === undefined ? undefined : `${program}: ${refusal}`;
}

/**
 * Parses the command (plain words joined by `&&`, `||`, `;`, `|` only) and checks every simple
 * command in it against the read-only programs. Anything not understood is not read-only.
 */
export function classifyCommand(command: string): CommandClassification {
  const parsed = parseCommandLine(command);
  if (!parsed.ok) return { read_only: false, reason: parsed.reason };
  for (const words of parsed.commands) {
    const reason = simpleCommandRefusal(words);
    if (reason) return { read_only: false, reason };
  }
  return { read_only: true };
}
