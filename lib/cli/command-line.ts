import { Command, CommanderError } from 'commander';

/** What one command line asked for: the command's words, its options by flag name, its operands. */
export interface Invocation {
  /** The command's words below `toolgate` ("keys", "create"). */
  path: string[];
  /** Each option given, by its long flag without dashes ("expires-in"). */
  options: Record<string, string | boolean | string[] | undefined>;
  /** The declared operands in order (a file, a version, a key id). */
  operands: string[];
}

export type Runner = (invocation: Invocation) => Promise<number>;

export type Parsed = { invocation: Invocation; run: Runner } | { exitCode: number };

const runners = new WeakMap<Command, Runner>();

/** Makes `command` a leaf of the tree that `run` carries out once its command line parsed. */
export function leaf(command: Command, run: Runner): Command {
  runners.set(command, run);
  return command.action(() => {});
}

/** An option that may be given several times (`--tenant a --tenant b`). */
export const repeated = (value: string, previous: string[] | undefined): string[] => [...(previous ?? []), value];

/**
 * Settings every command of the tree shares; set on the root before subcommands are added, which
 * inherit them. Errors and help print through commander, which exits through `exitOverride`
 * (caught in parseCommandLine), never process.exit.
 */
export function configureRoot(root: Command): Command {
  return root
    .exitOverride()
    .showSuggestionAfterError(true)
    .showHelpAfterError('(add --help for the usage, the options and an example)')
    .helpOption('-h, --help', 'this help');
}

/**
 * Parses `argv` against the tree. Help (`--help`, `-h`, `help CMD`) and --version answer exit 0;
 * a usage error (an unknown command or option, a missing operand) exit 2, after commander printed
 * it with the closest real name ("Did you mean --scopes?").
 */
export async function parseCommandLine(root: Command, argv: string[]): Promise<Parsed> {
  let chosen: Command | undefined;
  root.hook('preAction', (_root, command) => {
    chosen = command;
  });
  try {
    await root.parseAsync(argv, { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) return { exitCode: error.exitCode === 0 ? 0 : 2 };
    throw error;
  }
  const run = chosen && runners.get(chosen);
  if (!chosen || !run) return { exitCode: 2 };
  return { invocation: invocationOf(chosen), run };
}

function invocationOf(command: Command): Invocation {
  const path: string[] = [];
  for (let at: Command | null = command; at?.parent; at = at.parent) path.unshift(at.name());
  const options: Invocation['options'] = {};
  for (const option of command.options) {
    const name = option.long?.replace(/^--/, '');
    const value: unknown = command.getOptionValue(option.attributeName());
    if (name && name !== 'help' && value !== undefined) options[name] = value as string | boolean | string[];
  }
  const operands = (command.processedArgs as unknown[]).filter((value): value is string => typeof value === 'string');
  return { path, options, operands };
}

/** A string option's value (undefined when not given). */
export function textOf(invocation: Invocation, name: string): string | undefined {
  const value = invocation.options[name];
  return typeof value === 'string' ? value : undefined;
}

/** A boolean flag: given or not. */
export const flagOf = (invocation: Invocation, name: string): boolean => invocation.options[name] === true;

/** A repeatable option's values (undefined when not given). */
export function listOf(invocation: Invocation, name: string): string[] | undefined {
  const value = invocation.options[name];
  return Array.isArray(value) ? value : undefined;
}
