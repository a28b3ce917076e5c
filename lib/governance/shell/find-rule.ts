import type { ArgumentCheck } from './command-rule.ts';
import { pathRefusal } from './workspace-path.ts';

/**
 * find's arguments are an expression, not getopt options: `find [-H|-L|-P] [start...] [expr]`.
 * Each primary (`-name`, `-type`, ...) is listed with how many words it takes. Anything not
 * listed is refused, above all the primaries that run commands (`-exec`, `-execdir`, `-ok`,
 * `-okdir`), delete (`-delete`) or write files (`-fprint`, `-fprint0`, `-fprintf`, `-fls`), and
 * `-files0-from` (starting points read from a file), `-D`, `-O`, `--` before the starting points.
 * The primaries that read a file they name (`-newer`, `-anewer`, `-cnewer`, `-samefile`, and
 * `-newerXY` unless Y is `t`) take a path that must stay in the working directory.
 */
const LEADING_OPTIONS = new Set(['-H', '-L', '-P']);

/** Primary → how the words after it are read: a value, or a path that must stay in the working directory. */
export const FIND_PRIMARIES: ReadonlyMap<string, readonly ('value' | 'path')[]> = new Map(
  Object.entries({
    // operators and actions that only print
    '!': [], '(': [], ')': [], ',': [], '-not': [], '-a': [], '-and': [], '-o': [], '-or': [],
    '-print': [], '-print0': [], '-ls': [], '-prune': [], '-quit': [], '-printf': ['value'],
    // options
    '-maxdepth': ['value'], '-mindepth': ['value'], '-depth': [], '-d': [], '-mount': [], '-xdev': [], '-follow': [],
    '-noleaf': [], '-daystart': [], '-regextype': ['value'], '-ignore_readdir_race': [], '-noignore_readdir_race': [],
    // tests
    '-true': [], '-false': [], '-empty': [], '-readable': [], '-writable': [], '-executable': [], '-nouser': [], '-nogroup': [],
    '-name': ['value'], '-iname': ['value'], '-path': ['value'], '-ipath': ['value'], '-wholename': ['value'], '-iwholename': ['value'],
    '-lname': ['value'], '-ilname': ['value'], '-regex': ['value'], '-iregex': ['value'], '-type': ['value'], '-xtype': ['value'],
    '-size': ['value'], '-perm': ['value'], '-user': ['value'], '-group': ['value'], '-uid': ['value'], '-gid': ['value'],
    '-links': ['value'], '-inum': ['value'], '-fstype': ['value'], '-used': ['value'],
    '-mtime': ['value'], '-mmin': ['value'], '-atime': ['value'], '-amin': ['value'], '-ctime': ['value'], '-cmin': ['value'],
    '-newer': ['path'], '-anewer': ['path'], '-cnewer': ['path'], '-samefile': ['path'],
  }),
);

/**
 * `-newerXY reference`: X and Y are time kinds (a, B, c, m, t). With Y = `t` the reference is a
 * time (`-newermt 2024-01-01`); otherwise it is a file whose time is read (`-newermm /etc/shadow`),
 * so it must stay in the working directory. X = `t` is not a predicate.
 */
const NEWER_XY = /^-newer[aBcm]([aBcmt])$/;

/**
 * Where the starting points end, as find reads it: at a word that starts with `-` and has more
 * (`-` alone is a file), or at `!` or `(` alone. `)` and `,` there are files, and so are `!x`, `(x`.
 */
function startsExpression(word: string): boolean {
  return (word.startsWith('-') && word.length > 1) || word === '!' || word === '(';
}

function primaryWords(word: string): readonly ('value' | 'path')[] | undefined {
  const newer = NEWER_XY.exec(word);
  if (newer) return newer[1] === 't' ? ['value'] : ['path'];
  return FIND_PRIMARIES.get(word);
}

export const findRule: ArgumentCheck = (args) => {
  let index = 0;
  while (index < args.length && LEADING_OPTIONS.has(args[index])) index += 1;
  for (; index < args.length && !startsExpression(args[index]); index += 1) {
    const refusal = pathRefusal(args[index]);
    if (refusal) return refusal;
  }
  while (index < args.length) {
    const primary = args[index];
    const words = primaryWords(primary);
    if (!words) return primary.startsWith('-') ? `${primary} is not known to be read-only` : `expression word "${primary}" is not understood`;
    for (const [offset, kind] of words.entries()) {
      const word = args[index + 1 + offset];
      if (word === undefined) return `${primary} needs a value`;
      const refusal = kind === 'path' ? pathRefusal(word) : undefined;
      if (refusal) return refusal;
    }
    index += 1 + words.length;
  }
  return undefined;
};
