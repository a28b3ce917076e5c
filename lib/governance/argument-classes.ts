import { classifyCommand } from './shell/classify-command.ts';

/** What a grant by class limits the run to; the pipeline hands it to the executor (ToolExecutionContext). */
export interface GrantConstraints {
  /** The command runs with the workspace read-only and no network (the exec-server's sandbox enforces it). */
  read_only?: true;
}

/**
 * A class of argument values matched by meaning instead of by pattern, for policy rules:
 * `{"tool": "shell", "arguments": {"command": {"class": "read_only_commands"}}, "action": "grant"}`.
 */
export interface ArgumentClass {
  /** The only tool and argument the class may be used for: its meaning and its constraints belong to them. */
  tool: string;
  argument: string;
  /** One line for manifest problems and docs. */
  description: string;
  matches(value: unknown): boolean;
  /** What a grant by this class limits the run to. */
  constraints: GrantConstraints;
}

export const ARGUMENT_CLASSES: ReadonlyMap<string, ArgumentClass> = new Map([
  [
    'read_only_commands',
    {
      tool: 'shell',
      argument: 'command',
      description: 'shell commands made only of known read-only programs with options known to be safe; the granted command runs read-only',
      matches: (value: unknown) => typeof value === 'string' && classifyCommand(value).read_only,
      constraints: { read_only: true },
    },
  ],
]);

/** An argument matcher in a policy rule: a regular expression (a string) or a class by name. */
export type ArgumentMatcherSource = string | { class: string };

/** The rule's arguments matched by pattern: name → regular expression source. */
export function patternArguments(args: Readonly<Record<string, ArgumentMatcherSource>> = {}): Record<string, string> {
  return Object.fromEntries(Object.entries(args).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
}

/** A class that can never match: an unknown name, or a class used on another tool or argument (deny by default). */
const NEVER: ArgumentClass = { tool: '', argument: '', description: 'never matches', matches: () => false, constraints: {} };

/** The rule's arguments matched by class, each resolved for this tool and argument. */
export function classArguments(tool: string, args: Readonly<Record<string, ArgumentMatcherSource>> = {}): Array<[name: string, argumentClass: ArgumentClass]> {
  return Object.entries(args).flatMap(([name, source]) => {
    if (typeof source === 'string') return [];
    const known = ARGUMENT_CLASSES.get(source.class);
    return [[name, known && known.tool === tool && known.argument === name ? known : NEVER]];
  });
}

/** The constraints of every class a granting rule matched by, merged; undefined when there are none. */
export function grantConstraints(classes: readonly ArgumentClass[]): GrantConstraints | undefined {
  const merged: GrantConstraints = Object.assign({}, ...classes.map((argumentClass) => argumentClass.constraints));
  return Object.keys(merged).length > 0 ? merged : undefined;
}
