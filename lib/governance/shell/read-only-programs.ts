import { commandRule, noOperands, operandsAreText, type ArgumentCheck, type ParsedArguments } from './command-rule.ts';
import { findRule } from './find-rule.ts';
import { gitRule } from './git-rule.ts';
import { headRule, tailRule } from './head-tail-rule.ts';
import { sedRule } from './sed-rule.ts';
import { pathsRefusal } from './workspace-path.ts';

/**
 * The programs a `read_only_commands` grant runs without a human, each with every option it may
 * take (GNU coreutils, grep, ripgrep, findutils, sed, git). A program or option that is not here
 * is not read-only: the call waits for approval. Operands are paths that must stay in the working
 * directory unless the entry says otherwise.
 *
 * Only option syntax read exactly as the program reads it is accepted (getopt_long's, bash's,
 * clap's, git's: see command-rule.ts; tables checked against the real programs in
 * test/governance/shell/option-tables.test.ts); obsolete forms a program reads in some places
 * (tail's `+1f`, sort's `+POS`, uniq's `+N`, a count `-5` where it is not one) are refused.
 *
 * Left out on purpose, among others: `-o`/`--output` (sort, and any tool that writes a file),
 * `sort -T` and `--compress-program` (temp files, runs a program), `tail -f` (never ends),
 * `grep`/`rg` `--pre`, `--pre-glob`, `-z`/`--search-zip`, `--hostname-bin` (ripgrep runs
 * programs), `--files0-from`, `uniq IN OUT` (writes OUT), `xargs`, `env`, `tee`, `tree -o`,
 * `file -C`, `date -s`, any interpreter, and programs named by a path (`./ls`, `/bin/ls`).
 * Builtins (cd, echo, pwd, true, false) cannot be replaced by files; the rest are looked up
 * in the exec-server's PATH, which must not include the workspace.
 */

/** grep and rg: the first operand is the pattern unless one was given with -e/-f (or rg --files lists files). */
function patternThenPaths(patternOptions: readonly string[]) {
  return ({ operands, options }: ParsedArguments) => {
    const patternGiven = patternOptions.some((name) => options.has(name));
    return pathsRefusal(patternGiven ? operands : operands.slice(1));
  };
}

/** A word starting with `+` that the program reads as an obsolete option when it can (sort's `+POS`, uniq's `+CHARS`). */
function obsoletePlusRefusal(operands: readonly string[], form: string): string | undefined {
  const word = operands.find((operand) => operand.startsWith('+'));
  return word === undefined ? undefined : `"${word}" may be read as the obsolete ${form}, not as a file; this form is not read here`;
}

/** `uniq INPUT OUTPUT` writes OUTPUT: at most one operand. */
function oneInputAtMost({ operands }: ParsedArguments): string | undefined {
  const obsolete = obsoletePlusRefusal(operands, 'skip-characters count +N (write -s N)');
  if (obsolete) return obsolete;
  return operands.length > 1 ? 'a second operand is a file it writes' : pathsRefusal(operands);
}

/** sort's files; `+POS1 [-POS2]` is a key in traditional usage (the default). */
function sortFiles({ operands }: ParsedArguments): string | undefined {
  return obsoletePlusRefusal(operands, 'key +POS (write -k)') ?? pathsRefusal(operands);
}

/** `cd` alone goes to $HOME and `cd -` to $OLDPWD, outside the working directory: exactly one folder. */
function oneFolder({ operands }: ParsedArguments): string | undefined {
  if (operands.length !== 1 || operands[0] === '-') return 'it needs exactly one folder inside the working directory';
  return pathsRefusal(operands);
}

/** Programs whose every word is only text to print or ignore (options included). */
const anyText: ArgumentCheck = () => undefined;

export const READ_ONLY_PROGRAMS: ReadonlyMap<string, ArgumentCheck> = new Map(
  Object.entries({
    // shell builtins
    cd: commandRule({ flags: '-L -P', permute: false, operands: oneFolder }),
    echo: anyText,
    false: anyText,
    pwd: commandRule({ flags: '-L -P', permute: false, operands: noOperands }),
    true: anyText,

    // listing and reading files
    ls: commandRule({
      flags:
        '-a --all -A --almost-all -b --escape -B --ignore-backups -c -C -d --directory -f -F -g -G --no-group ' +
        '-h --human-readable --si -H --dereference-command-line -i --inode -k --kibibytes -l -L --dereference -m -n --numeric-uid-gid ' +
        '-N --literal -o -p -q --hide-control-chars -Q --quote-name -r --reverse -R --recursive -s --size -S -t -u -U -v -x -X -Z ' +
        '--context -1 --full-time --group-directories-first --author --show-control-chars',
      values: '-I --ignore --hide -w --width -T --tabsize --sort --time --time-style --format --block-size --indicator-style --quoting-style',
      optional: '--color --classify',
    }),
    cat: commandRule({
      flags: '-A --show-all -b --number-nonblank -e -E --show-ends -n --number -s --squeeze-blank -t -T --show-tabs -u -v --show-nonprinting',
    }),
    head: headRule,
    tail: tailRule,
    tac: commandRule({ flags: '-b --before -r --regex', values: '-s --separator' }),
    nl: commandRule({
      flags: '-p --no-renumber',
      values: '-b --body-numbering -d --section-delimiter -f --footer-numbering -h --header-numbering -i --line-increment ' +
        '-l --join-blank-lines -n --number-format -s --number-separator -v --starting-line-number -w --number-width',
    }),
    wc: commandRule({ flags: '-c --bytes -m --chars -l --lines -w --words -L --max-line-length' }),
    stat: commandRule({ flags: '-L --dereference -f --file-system -t --terse', values: '-c --format --printf' }),
    du: commandRule({
      flags: '-a --all -b --bytes -c --total -h --human-readable -k -m -s --summarize -x --one-file-system -L --dereference --apparent-size --si',
      values: '-d --max-depth --exclude -B --block-size',
    }),
    find: findRule,

    // searching
    grep: commandRule({
      flags:
        '-E --extended-regexp -F --fixed-strings -G --basic-regexp -P --perl-regexp -i -y --ignore-case --no-ignore-case ' +
        '-v --invert-match -w --word-regexp -x --line-regexp -c --count -l --files-with-matches -L --files-without-match ' +
        '-n --line-number -h --no-filename -H --with-filename -o --only-matching -q --quiet --silent -s --no-messages ' +
        '-r --recursive -R --dereference-recursive -a --text -I -b --byte-offset -T --initial-tab -Z --null -z --null-data ' +
        '-U --binary --line-buffered',
      values:
        '-e --regexp -m --max-count -A --after-context -B --before-context -C --context --include --exclude --exclude-dir ' +
        '--binary-files -d --directories -D --devices --label',
      paths: '-f --file --exclude-from',
      optional: '--color --colour',
      countOption: true,
      operands: patternThenPaths(['-e', '--regexp', '-f', '--file']),
    }),
    rg: commandRule({
      flags:
        '-i --ignore-case -S --smart-case -s --case-sensitive -w --word-regexp -x --line-regexp -v --invert-match ' +
        '-F --fixed-strings -n --line-number -N --no-line-number -l --files-with-matches --files-without-match -c --count ' +
        '--count-matches -o --only-matching -q --quiet -H --with-filename -I --no-filename -L --follow --hidden -. -u ' +
        '--no-ignore --no-ignore-vcs --no-ignore-parent --files --json --vimgrep --column --no-heading --heading ' +
        '-U --multiline --multiline-dotall -P --pcre2 --trim -0 --null -p --pretty --stats --no-messages --no-config ' +
        '-a --text --binary --no-unicode --crlf',
      values:
        '-e --regexp -g --glob --iglob -t --type -T --type-not -A --after-context -B --before-context -C --context ' +
        '-m --max-count -M --max-columns --max-depth --max-filesize --color --colors --sort --sortr -r --replace ' +
        '-E --encoding -j --threads',
      // --engine takes the next word only when it does not start with `-`: `--engine --pre=./evil` runs --pre
      optional: '--engine',
      paths: '-f --file',
      clap: true,
      operands: patternThenPaths(['-e', '--regexp', '-f', '--file', '--files']),
    }),
    sed: sedRule,

    // transforming what they read
    sort: commandRule({
      flags:
        '-b --ignore-leading-blanks -d --dictionary-order -f --ignore-case -g --general-numeric-sort -h --human-numeric-sort ' +
        '-i --ignore-nonprinting -M --month-sort -n --numeric-sort -R --random-sort -r --reverse -V --version-sort ' +
        '-c -C -m --merge -s --stable -u --unique -z --zero-terminated',
      values: '-k --key -t --field-separator -S --buffer-size --sort --parallel',
      optional: '--check',
      operands: sortFiles,
    }),
    cut: commandRule({
      flags: '-n -s --only-delimited --complement -z --zero-terminated',
      values: '-b --bytes -c --characters -f --fields -d --delimiter --output-delimiter',
    }),
    tr: commandRule({ flags: '-c -C --complement -d --delete -s --squeeze-repeats -t --truncate-set1', operands: operandsAreText }),
    uniq: commandRule({
      flags: '-c --count -d --repeated -D -u --unique -i --ignore-case -z --zero-terminated',
      values: '-f --skip-fields -s --skip-chars -w --check-chars',
      optional: '--all-repeated --group',
      operands: oneInputAtMost,
    }),
    basename: commandRule({ flags: '-a --multiple -z --zero', values: '-s --suffix', operands: operandsAreText }),
    dirname: commandRule({ flags: '-z --zero', operands: operandsAreText }),

    // about the system
    // Debian's which is a sh script: getopts (options end at the first name), only -a; a name with a `/` is a path it tests.
    which: commandRule({ flags: '-a', permute: false }),
    uname: commandRule({
      flags: '-a --all -s --kernel-name -n --nodename -r --kernel-release -v --kernel-version -m --machine -p --processor -i --hardware-platform -o --operating-system',
      operands: noOperands,
    }),
    whoami: commandRule({ operands: noOperands }),

    git: gitRule,
  }),
);
