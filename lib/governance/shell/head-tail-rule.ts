import { commandRule, type CommandRule } from './command-rule.ts';

/**
 * head and tail with their obsolete count forms, read the way GNU coreutils reads them.
 *
 * head: a first argument `-N[bcklmqvz]*` is a count with option letters (`head -5 f`); `-N`
 * anywhere else is an error. Only `-N` is accepted.
 *
 * tail: before getopt runs, the first argument may be `+N[bcl][f]` or `-N[bcl][f]`, where `f`
 * means follow the file forever. It is read so (not as a file name, nor as `-c f`) when it is
 * the only argument, or is followed by one word that is not an option, or by `--` and at most one
 * word. So `tail +1f FILE`, `tail +0f -- FILE` and `tail -cf FILE` follow forever, while in
 * `tail +1f a b` the `+1f` is a file. Only `+N` and `-N` are accepted in that place; every other
 * such word is refused, letters or not (`+`, `+f`, `-l`, `-5c`). `-N` anywhere else is an error.
 *
 * tail reads `_POSIX2_VERSION` (below 200112 or from 200809 on, the default, `+N` is an option;
 * in between, a file; checked here on GNU coreutils 9.1). A granted command cannot set it:
 * assignments are refused, and the exec-server passes only an allowlisted environment.
 */
const HEAD_TAIL_OPTIONS = {
  flags: '-q --quiet --silent -v --verbose -z --zero-terminated',
  values: '-n --lines -c --bytes',
};

const headTailOptions = commandRule(HEAD_TAIL_OPTIONS);

const PLAIN_COUNT = /^[+-]\d+$/;

/** The count without letters, then the other arguments as options and files. */
function afterCount(count: string, rest: readonly string[], program: 'head' | 'tail'): string | undefined {
  if (!PLAIN_COUNT.test(count)) {
    const follows = program === 'tail' ? ' (an f in it follows the file forever)' : '';
    return `"${count}" is ${program}'s obsolete count form with option letters${follows}, which is not read here; write -n N or -c N`;
  }
  return headTailOptions(rest);
}

function headArguments(args: readonly string[]): string | undefined {
  const [first, ...rest] = args;
  if (first !== undefined && /^-\d/.test(first)) return afterCount(first, rest, 'head');
  return headTailOptions(args);
}

/** GNU tail's parse_obsolete_option: whether its first argument is read as an obsolete count. */
function tailReadsObsoleteForm(args: readonly string[]): boolean {
  const [first, second] = args;
  const placed = args.length === 1 || (args.length === 2 && !(second.startsWith('-') && second.length > 1)) || ((args.length === 2 || args.length === 3) && second === '--');
  if (!placed) return false;
  if (first.startsWith('+')) return /^\d*[bcl]?f?$/.test(first.slice(1));
  // `-` is standard input and `-c` an option; `-cf`, `-l`, `-5`, `-f` are obsolete counts.
  if (!first.startsWith('-') || first === '-' || first === '-c') return false;
  return /^\d*[bcl]?f?$/.test(first.slice(1));
}

function tailArguments(args: readonly string[]): string | undefined {
  if (args.length > 0 && tailReadsObsoleteForm(args)) return afterCount(args[0], args.slice(1), 'tail');
  return headTailOptions(args);
}

/** The rules, with the option table both share (for the tests that hold it against the real programs). */
export const headRule: CommandRule = Object.assign(headArguments, { options: headTailOptions.options });
export const tailRule: CommandRule = Object.assign(tailArguments, { options: headTailOptions.options });
