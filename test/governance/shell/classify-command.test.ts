import { describe, expect, it } from 'vitest';
import { MAX_CLASSIFIED_COMMAND_CHARS } from '../../../lib/governance/shell/lexical-guard.ts';
import { classifyCommand } from '../../../lib/governance/shell/classify-command.ts';
import { READ_ONLY } from './commands.ts';

describe('read_only_commands: read-only commands', () => {
  it.each(READ_ONLY)('%s', (command) => {
    expect(classifyCommand(command)).toEqual({ read_only: true });
  });
});

/**
 * [command, why it is not read-only]: what no program's own table decides (each program's options
 * are in program-forms.ts): other programs, programs by path, keywords, quotes, assignments.
 */
const UNSAFE: Array<[string, string]> = [
  // a refused command anywhere in the line refuses the line
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
  ['_POSIX2_VERSION=199209 tail +1 f', 'it assigns a variable'],
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
  ['ls "\\`"', '\\` inside double quotes'], // bash reads `, shell-quote \` (found by the bash differential)
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
