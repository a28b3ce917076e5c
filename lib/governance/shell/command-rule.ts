import { pathRefusal, pathsRefusal } from './workspace-path.ts';

/**
 * How an option takes its value, as GNU getopt_long (and git's parse-options) read it:
 * - `flag`: no value (`-l`, `--all`); short flags may be bundled (`-la`);
 * - `value`: always a value, attached or the next word (`-n 5`, `-n5`, `--lines=5`, `--lines 5`);
 * - `path`: a `value` that names a file, checked to stay in the working directory;
 * - `optional`: a value only when attached (`--color=always`, `-U3`); the next word stays a word.
 * When unsure whether a program takes the next word as the value, say `optional`: the next word
 * is then checked on its own (as an option or operand), which is never less strict.
 */
type OptionKind = 'flag' | 'value' | 'path' | 'optional';

/** Why a command's arguments are not read-only (a sentence fragment), or undefined when they are. */
export type ArgumentCheck = (args: readonly string[]) => string | undefined;

/** The words that are not options, and the names of the options used (as written, e.g. `-e`, `--regexp`). */
export interface ParsedArguments {
  operands: string[];
  options: Set<string>;
}

interface CommandRuleSpec {
  /** Space-separated option names of each kind, e.g. `'-a -l --all'`. */
  flags?: string;
  values?: string;
  paths?: string;
  optional?: string;
  /** `-5` means a count (head, tail, git log). */
  numericOption?: boolean;
  /** Checks the operands once the options are known; default: they are paths. */
  operands?: (parsed: ParsedArguments) => string | undefined;
}

function optionTable(spec: CommandRuleSpec): Map<string, OptionKind> {
  const table = new Map<string, OptionKind>();
  const add = (names: string | undefined, kind: OptionKind) => {
    for (const name of (names ?? '').split(/\s+/).filter(Boolean)) table.set(name, kind);
  };
  add(spec.flags, 'flag');
  add(spec.values, 'value');
  add(spec.paths, 'path');
  add(spec.optional, 'optional');
  return table;
}

type Step = { next: number; refusal?: undefined } | { refusal: string };

function takeValue(kind: OptionKind, name: string, attached: string | undefined, args: readonly string[], index: number): Step {
  if (kind === 'flag') return attached === undefined ? { next: index + 1 } : { refusal: `option ${name} takes no value` };
  if (kind === 'optional') return { next: index + 1 };
  const value = attached ?? args[index + 1];
  if (value === undefined) return { refusal: `option ${name} needs a value` };
  const refusal = kind === 'path' ? pathRefusal(value) : undefined;
  return refusal ? { refusal } : { next: attached === undefined ? index + 2 : index + 1 };
}

function longOption(table: Map<string, OptionKind>, args: readonly string[], index: number, seen: Set<string>): Step {
  const word = args[index];
  const equals = word.indexOf('=');
  const name = equals < 0 ? word : word.slice(0, equals);
  const kind = table.get(name);
  // Abbreviations (`--out` for `--output`) are never in the table, so they are refused too.
  if (!kind) return { refusal: `option ${name} is not known to be read-only` };
  seen.add(name);
  return takeValue(kind, name, equals < 0 ? undefined : word.slice(equals + 1), args, index);
}

function shortOptions(table: Map<string, OptionKind>, args: readonly string[], index: number, seen: Set<string>): Step {
  const word = args[index];
  for (let i = 1; i < word.length; i++) {
    const name = `-${word[i]}`;
    const kind = table.get(name);
    if (!kind) return { refusal: `option ${name}${word.length > 2 ? ` (in ${word})` : ''} is not known to be read-only` };
    seen.add(name);
    if (kind === 'flag') continue;
    const rest = word.slice(i + 1);
    return takeValue(kind, name, rest === '' ? undefined : rest, args, index);
  }
  return { next: index + 1 };
}

/**
 * Reads arguments as GNU tools do: options anywhere (they are permuted), `--` ends them, `-` is
 * an operand. Every option must be in the table: an unknown one is refused, not skipped.
 */
function readArguments(spec: CommandRuleSpec, table: Map<string, OptionKind>, args: readonly string[]): ParsedArguments | { refusal: string } {
  const parsed: ParsedArguments = { operands: [], options: new Set() };
  let index = 0;
  while (index < args.length) {
    const word = args[index];
    if (word === '--') {
      parsed.operands.push(...args.slice(index + 1));
      break;
    }
    if (word === '-' || !word.startsWith('-')) {
      parsed.operands.push(word);
      index += 1;
      continue;
    }
    if (spec.numericOption && /^-\d+$/.test(word)) {
      parsed.options.add('-NUM');
      index += 1;
      continue;
    }
    const step = word.startsWith('--') ? longOption(table, args, index, parsed.options) : shortOptions(table, args, index, parsed.options);
    if (step.refusal !== undefined) return { refusal: step.refusal };
    index = step.next;
  }
  return parsed;
}

/** Operands that are files or folders to read. */
export const operandsArePaths = ({ operands }: ParsedArguments) => pathsRefusal(operands);

/** Operands that are only text (echo's words, which's program names). */
export const operandsAreText = () => undefined;

/** No operands at all (pwd). */
export const noOperands = ({ operands }: ParsedArguments) => (operands.length > 0 ? `it takes no operands (got "${operands[0]}")` : undefined);

/** A program's arguments checked against its option table, then its operands. */
export function commandRule(spec: CommandRuleSpec): ArgumentCheck {
  const table = optionTable(spec);
  return (args) => {
    const parsed = readArguments(spec, table, args);
    if ('refusal' in parsed) return parsed.refusal;
    return (spec.operands ?? operandsArePaths)(parsed);
  };
}
