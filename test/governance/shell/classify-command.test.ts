import { describe, expect, it } from 'vitest';
import { MAX_CLASSIFIED_COMMAND_CHARS } from '../../../lib/governance/shell/lexical-guard.ts';
import { classifyCommand } from '../../../lib/governance/shell/classify-command.ts';
import { READ_ONLY } from './commands.ts';

describe('read_only_commands: read-only commands', () => {
  it.each(READ_ONLY)('%s', (command) => {
    expect(classifyCommand(command)).toEqual({ read_only: true });
  });
});

/** [command, why it is not read-only]: known programs used to write, run or reach outside. */
const UNSAFE: Array<[string, string]> = [
  // the findings: git reads or writes any file, or runs a program
  ['git diff --no-index /etc/passwd /dev/null', 'option --no-index'],
  ['git diff /etc/passwd /dev/null', '"/etc/passwd" is an absolute path'],
  ['git diff ../../etc/passwd README.md', 'climbs out with ".."'],
  ['git log --output=x', 'option --output'],
  ['git log --output x', 'option --output'],
  ['git log --outp=x', 'option --outp'], // git accepts abbreviations: never in the table
  ['git show --output=/tmp/x HEAD', 'option --output'],
  ['git -c core.pager=sh status', 'option -c before the subcommand'],
  ['git -ccore.fsmonitor=./evil status', 'option -ccore.fsmonitor=./evil before the subcommand'],
  ['git --config-env=core.pager=X status', 'option --config-env=core.pager=X'],
  ['git -C /etc log', 'option -C before the subcommand'],
  ['git --git-dir=/srv/other/.git log', 'option --git-dir=/srv/other/.git'],
  ['git --work-tree=/ status', 'option --work-tree=/'],
  ['git --exec-path=./bin status', 'option --exec-path=./bin'],
  ['git -p log', 'option -p before the subcommand'],
  ['git --paginate log', 'option --paginate'],
  ['git diff --ext-diff', 'option --ext-diff'],
  ['git log -p --textconv', 'option --textconv'],
  ['git show --show-signature', 'option --show-signature'],
  ['git fetch --upload-pack=./evil origin', 'fetch is not a known read-only git subcommand'],
  ['git push --receive-pack=./evil', 'push is not a known read-only git subcommand'],
  ['git rebase --exec ./evil main', 'rebase is not a known read-only git subcommand'],
  ['git checkout status', 'checkout is not a known read-only git subcommand'],
  ['git branch -D main', 'option -D'],
  ['git branch new-feature', '"new-feature" would create a branch'],
  ['git branch -m old new', 'option -m'],
  ['git status --help', 'option --help'],
  ['git', 'there is no subcommand'],
  // find, sed, sort, grep, rg, uniq, tail
  ['find . -delete', '-delete is not known to be read-only'],
  ["find . -name '*.tmp' -delete", '-delete'],
  ["find . -exec rm '{}' ';'", '-exec'],
  ["find . -execdir sh -c id ';'", '-execdir'],
  ["find . -ok rm '{}' ';'", '-ok'],
  ["find . -okdir rm '{}' ';'", '-okdir'],
  ['find . -fprint out.txt', '-fprint'],
  ['find . -fprint0 out.txt', '-fprint0'],
  ["find . -fprintf out.txt '%p'", '-fprintf'],
  ['find . -fls out.txt', '-fls'],
  ['find /etc -name passwd', '"/etc" is an absolute path'],
  ['find . -newer /etc/shadow', '"/etc/shadow" is an absolute path'],
  ['sed -i s/a/b/ f', 'option -i'],
  ["sed -n 's/a/b/w out' f", 'is not only print commands'],
  ["sed -n '1e id' f", 'is not only print commands'],
  ["sed -n '1p;w out' f", 'is not only print commands'],
  ["sed -n '/a/w out' f", 'is not only print commands'],
  ["sed '1,5p' f", '-n is missing'],
  ["sed -n -e '1p' f", 'option -e'],
  ['sed -n -f script.sed f', 'option -f'],
  ["sed -n '1,5p' f -i", 'option -i'], // GNU tools permute options: -i after the file still edits
  ['sort -o out.txt names.txt', 'option -o'],
  ['sort --output=out.txt names.txt', 'option --output'],
  ['sort --compress-program=./evil big.txt', 'option --compress-program'],
  ['sort -T /tmp names.txt', 'option -T'],
  ['grep -r secret /etc', '"/etc" is an absolute path'],
  ['grep -f /etc/shadow README.md', '"/etc/shadow" is an absolute path'],
  ['rg --pre ./evil needle', 'option --pre'],
  ['rg --pre=./evil needle', 'option --pre'],
  ['rg -z needle', 'option -z'],
  ['rg --search-zip needle', 'option --search-zip'],
  ['rg --hostname-bin ./evil needle', 'option --hostname-bin'],
  ['uniq in.txt out.txt', 'a second operand is a file it writes'],
  ['tail -f server.log', 'option -f'],
  ['cat /proc/1/environ', '"/proc/1/environ" is an absolute path'],
  ['cat ../secrets.env', 'climbs out with ".."'],
  ['cd', 'exactly one folder'],
  ['cd - && cat secrets.env', 'exactly one folder'], // $OLDPWD
  ['cd .. && cat secrets.env', 'climbs out'],
  // other programs, and programs by path
  ['rm -rf /', '"rm" is not a known read-only program'],
  ['ls; rm -rf /', '"rm" is not a known read-only program'],
  ['ls && rm -rf build', '"rm" is not a known read-only program'],
  ['cat README.md | sh', '"sh" is not a known read-only program'],
  ['ls | xargs rm', '"xargs" is not a known read-only program'],
  ['cat f | tee copy', '"tee" is not a known read-only program'],
  ['env ls', '"env" is not a known read-only program'],
  ['bash -c ls', '"bash" is not a known read-only program'],
  ['./ls', '"./ls" is not a known read-only program'],
  ['/bin/ls', '"/bin/ls" is not a known read-only program'],
  ['exec ls', '"exec" is not a known read-only program'],
  ['eval ls', '"eval" is not a known read-only program'],
  ['source script.sh', '"source" is not a known read-only program'],
  ['time ls', '"time" is not a known read-only program'],
  ['! ls', '"!" is not a known read-only program'],
  ['if true; then ls; fi', '"if" is not a known read-only program'],
  ['for f in a; do ls; done', '"for" is not a known read-only program'],
  // quotes do not hide anything: the classifier sees words after quote removal
  ["'ls;rm' x", '"ls;rm" is not a known read-only program'],
  ["git 'diff' '--no-index' a b", 'option --no-index'],
  ['git "-c" core.pager=sh status', 'option -c'],
  ["find . '-'delete", '-delete'],
  ["sed '-i' s/a/b/ f", 'option -i'],
  // assignments change what the program does
  ['FOO=1 ls', 'it assigns a variable (FOO=...)'],
  ['GIT_DIR=/srv/other/.git git log', 'it assigns a variable (GIT_DIR=...)'],
  ['PAGER=./evil git log', 'it assigns a variable'],
  ['ls && LD_PRELOAD=./x.so cat f', 'it assigns a variable'],
];

describe('read_only_commands: known programs used unsafely', () => {
  it.each(UNSAFE)('%s', (command, reason) => {
    const classified = classifyCommand(command);
    expect(classified.read_only).toBe(false);
    expect(classified).toMatchObject({ reason: expect.stringContaining(reason) });
  });
});

/** [command, why it is not understood]: shell syntax beyond plain words and `&& || ; |`. */
const NOT_UNDERSTOOD: Array<[string, string]> = [
  ['ls $(rm x)', 'it expands a variable or substitutes a command'],
  ['ls "$(rm x)"', 'it expands a variable or substitutes a command'],
  ['ls `id`', 'it substitutes a command (backtick)'],
  ['ls "`id`"', 'it substitutes a command (backtick)'],
  ['ls $HOME', 'it expands a variable'],
  ['cat "$HOME/.ssh/id_rsa"', 'it expands a variable'],
  ['ls ${PWD}', 'it expands a variable'],
  ['echo $((1+2))', 'it expands a variable'],
  ["echo $'\\x2ddelete'", 'it expands a variable'],
  ['echo $"x"', 'it expands a variable'],
  ['ls $', 'it expands a variable'],
  ['ls > f', 'the shell operator `>`'],
  ['ls >> f', 'the shell operator `>>`'],
  ['ls 2>&1', 'the shell operator `>&`'],
  ['ls &> f', 'the shell operator `&>`'],
  ['cat < /etc/passwd', 'the shell operator `<`'],
  ['cat <<EOF', 'the shell operator `<<`'],
  ['cat <<< text', 'the shell operator `<<<`'],
  ['cat <(id)', 'the shell operator `<(`'],
  ['ls>f', 'the shell operator `>`'],
  ['ls &', 'the shell operator `&`'],
  ['ls & rm -rf /', 'the shell operator `&`'],
  ['(ls)', 'the shell operator `(`'],
  ['ls |& cat', 'the shell operator `|&`'],
  ['ls\nrm x', 'U+000A'],
  ['ls\rrm x', 'U+000D'],
  ['ls \\\nx', 'U+000A'],
  ['ls\u0000x', 'U+0000'],
  ['ls\u00a0-la', 'U+00A0'],
  ['ls\u2028rm', 'U+2028'],
  ['git\u200bstatus', 'U+200B'],
  ['ls *', 'it has a glob (`*`)'],
  ['cat *.env', 'it has a glob (`*`)'],
  ['ls ?', 'it has a glob (`?`)'],
  ['ls [ab]', 'it has a glob (`[`)'],
  ['ls {a,b}', 'brace expansion or a command group (`{`)'],
  ['{ ls; }', 'brace expansion or a command group (`{`)'],
  ['find . -exec rm {} ;', 'brace expansion'],
  ['ls ~', 'it expands `~` to a home folder'],
  ['cat ~/.ssh/id_rsa', 'it expands `~`'],
  ['ls ~root', 'it expands `~`'],
  ['grep --file=~/.netrc x', 'it expands `~`'],
  ['ls # comment', 'it has a comment'],
  ["ls 'unterminated", 'unterminated single quote'],
  ['ls "unterminated', 'unterminated double quote'],
  ['ls \\', 'ends with a backslash'],
  ['ls ;', 'an operator has no command after it'],
  ['; ls', 'an operator has no command before it'],
  ['ls && && pwd', 'an operator has no command before it'],
  ['ls ;; pwd', 'the shell operator `;;`'],
  ['   ', 'it has no command'],
  ['', 'it has no command'],
  ['ls '.padEnd(MAX_CLASSIFIED_COMMAND_CHARS + 1, 'a'), `longer than ${MAX_CLASSIFIED_COMMAND_CHARS} characters`],
];

describe('read_only_commands: commands not understood', () => {
  it.each(NOT_UNDERSTOOD)('%j', (command, reason) => {
    const classified = classifyCommand(command);
    expect(classified.read_only).toBe(false);
    expect(classified).toMatchObject({ reason: expect.stringContaining(reason) });
  });

  it('quoted specials are literal and fine: single quotes, escaped characters', () => {
    expect(classifyCommand("grep -n '$HOME `id` *.ts {a,b} ~ #' README.md")).toEqual({ read_only: true });
    expect(classifyCommand('grep -n \\$HOME README.md')).toEqual({ read_only: true });
    expect(classifyCommand('git log HEAD~2..HEAD')).toEqual({ read_only: true });
  });
});
