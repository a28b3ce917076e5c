import { commandRule, type ArgumentCheck, type CommandRule, type ParsedArguments } from './command-rule.ts';

/**
 * git, read-only: `git [--no-pager|-P|--no-optional-locks|--literal-pathspecs] SUBCOMMAND ...`
 * with SUBCOMMAND one of status, diff, log, show, branch (listing), rev-parse, ls-files, blame,
 * each with the options below and nothing else.
 *
 * Refused because they change what git is or does (none of them is in a table here):
 * - global options `-c`, `--config-env` (any config, e.g. `core.pager=sh -c ...`), `-C`,
 *   `--git-dir`, `--work-tree`, `--namespace` (another repository), `--exec-path` (other
 *   programs), `-p`/`--paginate` (a pager), `--bare`, `--super-prefix`;
 * - `--output` (writes any file), `--no-index` (compares any two files), `--ext-diff`,
 *   `--textconv` (run configured programs), `--exec`, `--upload-pack`, `--receive-pack`,
 *   `--show-signature` (runs gpg), `-O` (reads an order file), and every abbreviation.
 * Paths and revisions must stay in the working directory: `git diff /etc/passwd /dev/null`
 * compares two files outside any repository even without `--no-index`.
 *
 * Options git reads with a value in the next word (`-S word`, `--author word`) are `values`, so
 * the word after them is never judged as an option or operand (it may even be `--`:
 * `git ls-files -x -- --exclude-from=F` reads F); those it reads only with an attached value
 * (`--stat=50`, `-U3`, `--format=%h`) are `optional`. Checked against git itself in
 * test/governance/shell/option-tables.test.ts.
 *
 * What no argument check can stop is git running a program named by the repository's own
 * config (`core.fsmonitor`, `diff.external`, textconv and filter drivers, `gpg.program` with
 * `log.showSignature`), which a granted `git status`, `git diff` or `git log` reads. That is why a grant by class runs read-only (no writes to the
 * workspace, no network): the program may run, but it cannot change anything.
 */
const GLOBAL_FLAGS = new Set(['--no-pager', '-P', '--no-optional-locks', '--literal-pathspecs']);

/** How diff, log and show print a change. */
const DIFF_FLAGS =
  '-p -u --patch -s --no-patch --raw --patch-with-raw --patch-with-stat --numstat --shortstat --summary --compact-summary ' +
  '--name-only --name-status -z --full-index --binary --no-color --no-renames --check -R -a --text -w --ignore-all-space ' +
  '-b --ignore-space-change --ignore-space-at-eol --ignore-blank-lines --ignore-cr-at-eol --minimal --patience --histogram ' +
  '--no-prefix --no-ext-diff --no-textconv --exit-code --quiet -W --function-context -D --irreversible-delete --find-copies-harder';
const DIFF_VALUES = '-l -S -G --diff-filter --diff-algorithm --src-prefix --dst-prefix --inter-hunk-context --ws-error-highlight';
const DIFF_OPTIONAL =
  '-U --unified -M --find-renames -C --find-copies -B --break-rewrites --stat --dirstat --abbrev --relative --color ' +
  '--color-words --color-moved --word-diff --submodule --ignore-submodules';

/** How log and show choose and print commits. */
const LOG_FLAGS =
  '--oneline --graph --all --no-decorate --abbrev-commit --no-abbrev-commit --no-merges --merges --first-parent --reverse ' +
  '--topo-order --date-order --author-date-order --relative-date --follow --left-right --cherry-pick --cherry-mark --boundary ' +
  '--all-match --invert-grep -i --regexp-ignore-case -E --extended-regexp -F --fixed-strings --source --use-mailmap --mailmap ' +
  '--full-history --simplify-merges --do-walk -g --walk-reflogs -m --cc --no-notes';
const LOG_VALUES = '-n --max-count --skip --since --after --until --before --author --committer --grep --date';
const LOG_OPTIONAL = '--format --pretty --decorate --branches --tags --remotes --no-walk';

const LOG_OPTIONS = commandRule({
  flags: `${DIFF_FLAGS} ${LOG_FLAGS}`,
  values: `${DIFF_VALUES} ${LOG_VALUES}`,
  optional: `${DIFF_OPTIONAL} ${LOG_OPTIONAL}`,
  countOption: true,
});

/** log and show, without a format whose `%G` placeholders (`%G?`, `%GS`, ...) verify signatures: that runs gpg, as --show-signature does. */
function logArguments(args: readonly string[]): string | undefined {
  const format = args.find((word) => /^--(format|pretty)=/.test(word) && word.includes('%G'));
  if (format) return `${format.slice(0, format.indexOf('='))}: its %G placeholders verify signatures, which runs gpg (as --show-signature does)`;
  return LOG_OPTIONS(args);
}

const LOG_RULE: CommandRule = Object.assign(logArguments, { options: LOG_OPTIONS.options });

/** `git branch` lists only with none of the options that create, rename, copy or delete, and patterns only after --list. */
function branchOperands(parsed: ParsedArguments): string | undefined {
  if (parsed.operands.length > 0 && !parsed.options.has('--list') && !parsed.options.has('-l')) {
    return `"${parsed.operands[0]}" would create a branch (only listing is read-only; patterns need --list)`;
  }
  return undefined;
}

export const GIT_SUBCOMMANDS: ReadonlyMap<string, CommandRule> = new Map(
  Object.entries({
    status: commandRule({
      flags: '-s --short -b --branch --long -v --verbose -z --show-stash --ahead-behind --no-ahead-behind --renames --no-renames --no-column',
      optional: '--porcelain -u --untracked-files --ignored --ignore-submodules --find-renames',
    }),
    diff: commandRule({ flags: `${DIFF_FLAGS} --cached --staged --merge-base`, values: DIFF_VALUES, optional: DIFF_OPTIONAL }),
    log: LOG_RULE,
    show: LOG_RULE,
    branch: commandRule({
      flags: '-a --all -r --remotes -v --verbose -l --list --show-current --no-color -i --ignore-case --no-abbrev',
      values: '--format --sort --points-at',
      // `--merged` alone means HEAD; followed by anything, that word is its commit, even `--`
      defaultWhenLast: '--merged --no-merged --contains --no-contains',
      optional: '--color --abbrev',
      operands: branchOperands,
    }),
    'rev-parse': commandRule({
      flags:
        '--show-toplevel --show-prefix --show-cdup --git-dir --git-common-dir --absolute-git-dir --is-inside-work-tree ' +
        '--is-inside-git-dir --is-bare-repository --is-shallow-repository --verify -q --quiet --symbolic --symbolic-full-name ' +
        '--all --branches --tags --remotes',
      optional: '--abbrev-ref --short',
    }),
    'ls-files': commandRule({
      flags:
        '-c --cached -d --deleted -m --modified -o --others -i --ignored -s --stage -u --unmerged -k --killed -t -v -f -z ' +
        '--directory --no-empty-directory --exclude-standard --full-name --error-unmatch --eol --deduplicate',
      values: '-x --exclude --format',
      optional: '--abbrev',
    }),
    blame: commandRule({
      flags: '-b --root --show-stats -l -t -s -e --show-email -w -p --porcelain --line-porcelain -f --show-name -n --show-number -c --minimal',
      values: '-L --date',
      optional: '-M -C --abbrev',
    }),
  }),
);

export const gitRule: ArgumentCheck = (args) => {
  let index = 0;
  for (; index < args.length && args[index].startsWith('-'); index += 1) {
    if (!GLOBAL_FLAGS.has(args[index])) return `option ${args[index]} before the subcommand is not known to be read-only (it can change the repository, config or programs git uses)`;
  }
  const subcommand = args[index];
  if (subcommand === undefined) return 'there is no subcommand';
  const check = GIT_SUBCOMMANDS.get(subcommand);
  if (!check) return `${subcommand} is not a known read-only git subcommand`;
  const refusal = check(args.slice(index + 1));
  return refusal === undefined ? undefined : `${subcommand}: ${refusal}`;
};
