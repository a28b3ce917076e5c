import { pathRefusal, pathsRefusal } from './workspace-path.ts';

/**
 * How an option takes its value, as GNU getopt_long (and git's parse-options) read it:
 * - `flag`: no value (`-l`, `--all`); short flags may be bundled (`-la`);
 * - `value`: always a value, attached or the next word whatever it is (`-n 5`, `-n5`, `--lines=5`,
 *   `--lines 5`, `-e --`);
 * - `path`: a `value` that names a file, checked to stay in the working directory;
 * - `optional`: a value only when attached (`--color=always`, `-U3`); the next word stays a word;
 * - `defaultWhenLast`: a `value`, except that as the very last word it has none (git's
 *   `--merged`, `--contains`: parse-options' PARSE_OPT_LASTARG_DEFAULT).
 * An option the program reads with a value in the next word must be `value` (or `path`), never
 * `optional`: `--author -- --output=x` has git take `--` as the author and `--output=x` as an option.
 */
export type OptionKind = 'flag' | 'value' | 'path' | 'optional' | 'defaultWhenLast';

/** Why a command's arguments are not read-only (a sentence fragment), or undefined when they are. */
export type ArgumentCheck = (args: readonly string[]) => string | undefined;

/** An ArgumentCheck made from an option table, which tests hold against the real program. */
export interface CommandRule extends ArgumentCheck {
  readonly options: ReadonlyMap<string, OptionKind>;
}

/** The option table behind a check, when it has one. */
export function optionTableOf(check: ArgumentCheck): ReadonlyMap<string, OptionKind> | undefined {
  return 'options' in check ? (check as CommandRule).options : undefined;
}

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
  defaultWhenLast?: string;
  /**
   * clap (ripgrep) drops every leading `=` of an attached value: `-f=FILE` and `--file==FILE` read
   * FILE. GNU getopt keeps them (`-f=FILE` reads `=FILE`).
   */
  clap?: boolean;
  /** `-5` anywhere means a count (grep's context lines, git log's max-count). */
  countOption?: boolean;
  /**
   * false: options end at the first operand, as in bash builtins and `getopts` scripts
   * (`cd src -L` has two operands); default true: GNU getopt permutes them.
   */
  permute?: boolean;
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
  add(spec.defaultWhenLast, 'defaultWhenLast');
  return table;
}

type Step = { next: number; refusal?: undefined } | { refusal: string };

/** Where an option's value is: attached (`-n5`, `--lines=5`) or the next word. */
interface OptionAt {
  kind: OptionKind;
  name: string;
  attached: string | undefined;
  index: number;
}

function takeValue({ kind, name, attached, index }: OptionAt, args: readonly string[], spec: CommandRuleSpec): Step {
  if (kind === 'flag') return attached === undefined ? { next: index + 1 } : { refusal: `option ${name} takes no value` };
  if (kind === 'optional') return { next: index + 1 };
  if (kind === 'defaultWhenLast' && attached === undefined && index + 1 === args.length) return { next: index + 1 };
  const written = attached ?? args[index + 1];
  if (written === undefined) return { refusal: `option ${name} needs a value` };
  const value = spec.clap && attached !== undefined ? written.replace(/^=+/, '') : written;
  const refusal = kind === 'path' ? pathRefusal(value) : undefined;
  return refusal ? { refusal } : { next: attached === undefined ? index + 2 : index + 1 };
}

function longOption(spec: CommandRuleSpec, table: ReadonlyMap<string, OptionKind>, args: readonly string[], index: number, seen: Set<string>): Step {
  const word = args[index];
  const equals = word.indexOf('=');
  const name = equals < 0 ? word : word.slice(0, equals);
  const kind = table.get(name);
  // Abbreviations (`--out` for `--output`) are never in the table, so they are refused too.
  if (!kind) return { refusal: `option ${name} is not known to be read-only` };
  seen.add(name);
  return takeValue({ kind, name, attached: equals < 0 ? undefined : word.slice(equals + 1), index }, args, spec);
}

function unknownShortOption(name: string, word: string): string {
  if (/^-\d$/.test(name)) return `a count like ${word} is not read in this place; give it with an option (such as -n 5)`;
  return `option ${name}${word.length > 2 ? ` (in ${word})` : ''} is not known to be read-only`;
}

function shortOptions(spec: CommandRuleSpec, table: ReadonlyMap<string, OptionKind>, args: readonly string[], index: number, seen: Set<string>): Step {
  const word = args[index];
  for (let i = 1; i < word.length; i++) {
    const name = `-${word[i]}`;
    const kind = table.get(name);
    if (!kind) return { refusal: unknownShortOption(name, word) };
    seen.add(name);
    if (kind === 'flag') continue;
    const rest = word.slice(i + 1);
    return takeValue({ kind, name, attached: rest === '' ? undefined : rest, index }, args, spec);
  }
  return { next: index + 1 };
}

/**
 * Reads arguments as GNU tools do: options anywhere (they are permuted) unless the rule says
 * otherwise, `--` ends them, `-` is an operand. Every option must be in the table: an unknown
 * one is refused, not skipped.
 */
function readArguments(spec: CommandRuleSpec, table: ReadonlyMap<string, OptionKind>, args: readonly string[]): ParsedArguments | { refusal: string } {
  const parsed: ParsedArguments = { operands: [], options: new Set() };
  let index = 0;
  while (index < args.length) {
    const word = args[index];
    if (word === '--') {
      parsed.operands.push(...args.slice(index + 1));
      break;
    }
    if (word === '-' || !word.startsWith('-')) {
      if (spec.permute === false) {
        parsed.operands.push(...args.slice(index));
        break;
      }
      parsed.operands.push(word);
      index += 1;
      continue;
    }
    if (spec.countOption && /^-\d+$/.test(word)) {
      parsed.options.add('-NUM');
      index += 1;
      continue;
    }
    const step = word.startsWith('--') ? longOption(spec, table, args, index, parsed.options) : shortOptions(spec, table, args, index, parsed.options);
    if (step.refusal !== undefined) return { refusal: step.refusal };
    index = step.next;
  }
  return parsed;
}

/** Operands that are files or folders to read. */
export const operandsArePaths = ({ operands }: ParsedArguments) => pathsRefusal(operands);

/** Operands that are only text (tr's sets, basename's names). */
export const operandsAreText = () => undefined;

/** No operands at all (pwd). */
export const noOperands = ({ operands }: ParsedArguments) => (operands.length > 0 ? `it takes no operands (got "${operands[0]}")` : undefined);

/** A program's arguments checked against its option table, then its operands. */
export function commandRule(spec: CommandRuleSpec): CommandRule {
  const table = optionTable(spec);
  const check: ArgumentCheck = (args) => {
    const parsed = readArguments(spec, table, args);
    if ('refusal' in parsed) return parsed.refusal;
    return (spec.operands ?? operandsArePaths)(parsed);
  };
  return Object.assign(check, { options: table });
}
