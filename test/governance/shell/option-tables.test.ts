import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { optionTableOf, type OptionKind } from '../../../lib/governance/shell/command-rule.ts';
import { FIND_PRIMARIES } from '../../../lib/governance/shell/find-rule.ts';
import { GIT_SUBCOMMANDS } from '../../../lib/governance/shell/git-rule.ts';
import { READ_ONLY_PROGRAMS } from '../../../lib/governance/shell/read-only-programs.ts';

/**
 * The classifier's option tables held against the programs themselves (the ones installed here:
 * GNU coreutils, grep and sed; findutils; ripgrep; git; bash): every option it accepts is one the
 * program has under exactly that name, and takes the next word as its value exactly when the
 * table says so. A wrong kind is a hole: an option the table calls a flag but the program reads
 * with a value hides the next word from the check (`git ls-files -x -- --exclude-from=/etc/x`).
 * Each run has a timeout, standard input empty, and a scratch folder for its files.
 */
let scratch: string;

beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), 'toolgate-options-'));
  writeFileSync(join(scratch, 'a'), 'foo\n');
  writeFileSync(join(scratch, 'b'), 'foo\n');
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd: scratch, stdio: 'pipe' });
  git('init', '-q');
  git('add', 'a');
  git('commit', '-qm', 'first');
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function run(program: string, args: readonly string[]) {
  const env = { PATH: '/usr/bin:/bin', LANG: 'C', HOME: scratch, GIT_CONFIG_NOSYSTEM: '1' };
  return spawnSync(program, args, { cwd: scratch, env, input: '', encoding: 'utf8', timeout: 10_000 });
}

function optionsOf(program: string): ReadonlyMap<string, OptionKind> {
  const check = READ_ONLY_PROGRAMS.get(program);
  const options = check && optionTableOf(check);
  if (!options) throw new Error(`${program} has no option table`);
  return options;
}

const entries = (options: ReadonlyMap<string, OptionKind>) => [...options].map(([name, kind]) => ({ name, kind }));

/** What GNU getopt_long says of an option: its own messages name the option in full. */
function getoptKind(program: string, name: string): string {
  if (!name.startsWith('--')) {
    const alone = run(program, [name]).stderr;
    if (alone.includes('invalid option')) return 'unknown';
    return alone.includes('option requires an argument') ? 'value' : 'flag';
  }
  const attached = run(program, [`${name}=x`]).stderr;
  const alone = run(program, [name]).stderr;
  if (/unrecognized option|is ambiguous/.test(attached + alone)) return 'unknown';
  const noValue = /option '(--[^']+)' doesn't allow an argument/.exec(attached);
  if (noValue) return noValue[1] === name ? 'flag' : `an abbreviation of ${noValue[1]}`;
  const needsValue = /option '(--[^']+)' requires an argument/.exec(alone);
  if (needsValue) return needsValue[1] === name ? 'value' : `an abbreviation of ${needsValue[1]}`;
  // An optional value is silent either way: the option must be in --help under that exact name.
  return new RegExp(`${name}(?![-\\w])`).test(run(program, ['--help']).stdout) ? 'optional' : 'not in --help';
}

const GETOPT_PROGRAMS = ['ls', 'cat', 'head', 'tail', 'tac', 'nl', 'wc', 'stat', 'du', 'grep', 'sed', 'sort', 'cut', 'tr', 'uniq', 'basename', 'dirname', 'uname', 'whoami'];

describe('option tables agree with GNU getopt_long (coreutils, grep, sed)', () => {
  it('covers every program with getopt options', () => {
    const tabled = [...READ_ONLY_PROGRAMS].filter(([, check]) => optionTableOf(check)).map(([name]) => name);
    expect(tabled.filter((name) => !['cd', 'pwd', 'which', 'rg'].includes(name)).sort()).toEqual([...GETOPT_PROGRAMS].sort());
  });

  it('whoami has no options but --help and --version, and the table none', () => {
    expect(optionsOf('whoami').size).toBe(0);
  });

  describe.each(GETOPT_PROGRAMS.filter((program) => program !== 'whoami'))('%s', (program) => {
    it.each(entries(optionsOf(program)))('$name is a $kind', ({ name, kind }) => {
      expect(getoptKind(program, name)).toBe(kind === 'path' ? 'value' : kind);
    });
  });
});

describe('option tables agree with ripgrep (clap)', () => {
  /**
   * `rg OPTION --files`: a flag lists the files (or clap says the two cannot be used together);
   * an option with a value takes `--files` as it, or fails because it wants one. Either way rg
   * never reads the word after a value option as an option and then runs. `--engine` does:
   * with a default value, it takes the next word only when that does not start with `-`, so the
   * table reads it with an attached value only (`--engine --pre=./evil` runs the --pre program).
   */
  it.each(entries(optionsOf('rg')))('$name is a $kind', ({ name, kind }) => {
    const ran = run('rg', [name, '--files']);
    expect(ran.stderr).not.toMatch(/wasn't expected/);
    const readsAsFlag = ran.status === 0 || ran.stderr.includes('cannot be used with');
    expect(readsAsFlag ? 'flag or optional' : 'value').toContain(kind === 'path' ? 'value' : kind);
    if (kind === 'optional') expect(run('rg', [`${name}=auto`, '--files']).status).toBe(0);
  });

  it('drops every leading "=" of an attached value (so the table says clap)', () => {
    writeFileSync(join(scratch, 'patterns'), 'foo\n');
    for (const args of [['-f=patterns'], ['-f==patterns'], ['--file==patterns']]) {
      expect(run('rg', [...args, 'a'])).toMatchObject({ status: 0, stdout: 'foo\n' });
    }
  });
});

describe('option tables agree with git', () => {
  /** What each subcommand needs around an option to get as far as reading the word after it. */
  const AROUND: Record<string, { before?: string[]; after?: string[] }> = {
    diff: { after: ['HEAD', '--', 'a'] },
    log: { after: ['--', 'a'] },
    show: { before: ['--do-walk'], after: ['--', 'a'] },
    blame: { after: ['--', 'a'] },
    'rev-parse': { after: ['HEAD'] },
  };

  /** Whether git read the word after the option as its value: otherwise it complains of `--bogus-zz` (rev-parse prints `--show-toplevel`'s answer). */
  function takesNextWord(subcommand: string, name: string): boolean {
    const { before = [], after = [] } = AROUND[subcommand] ?? {};
    const probe = subcommand === 'rev-parse' ? '--show-toplevel' : '--bogus-zz';
    const ran = run('git', [subcommand, ...before, name, probe, ...after]);
    // Only with an attached value (`--format=%h`): alone, git refuses the option itself.
    if (ran.stderr.includes(`unrecognized argument: ${name}\n`)) return false;
    if (subcommand === 'rev-parse') return !ran.stdout.includes(scratch);
    const complained = /unknown option `-*bogus-zz'|unrecognized argument: --bogus-zz|invalid option: --bogus-zz/.test(ran.stderr);
    return !(complained || (subcommand === 'diff' && ran.stderr.startsWith('usage: git diff')));
  }

  const options = [...GIT_SUBCOMMANDS].flatMap(([subcommand, rule]) => entries(rule.options).map((entry) => ({ subcommand, ...entry })));

  it.each(options)('$subcommand $name is a $kind', ({ subcommand, name, kind }) => {
    expect(takesNextWord(subcommand, name)).toBe(kind === 'value' || kind === 'path' || kind === 'defaultWhenLast');
    if (kind === 'defaultWhenLast') expect(run('git', [subcommand, name]).status).toBe(0);
    if (kind === 'flag') expect(run('git', [subcommand, name]).stderr).not.toContain(`unrecognized argument: ${name}`);
    if (kind === 'flag' && name.startsWith('--') && subcommand !== 'rev-parse') {
      expect(run('git', [subcommand, `${name}=x`, ...(AROUND[subcommand]?.after ?? [])]).status).not.toBe(0);
    }
  });
});

describe('the bash builtins and which', () => {
  it.each([
    ['cd', '.'],
    ['pwd', ''],
  ])('%s: every option in the table is one bash has, and options end at the first operand', (builtin, operand) => {
    for (const name of optionsOf(builtin).keys()) expect(run('bash', ['-c', `${builtin} ${name} ${operand}`]).status).toBe(0);
    expect(run('bash', ['-c', 'cd . -L']).stderr).toContain('too many arguments');
  });

  it('which: -a is its option, and options end at the first name', () => {
    expect([...optionsOf('which').keys()]).toEqual(['-a']);
    expect(run('which', ['-a', 'sh'])).toMatchObject({ status: 0 });
    expect(run('which', ['sh', '-a'])).toMatchObject({ status: 1, stdout: expect.stringContaining('/sh') });
    expect(run('which', ['-s', 'sh']).status).not.toBe(0);
  });
});

describe('the find table agrees with findutils', () => {
  const OPERATORS = new Set(['!', '(', ')', ',', '-not', '-a', '-and', '-o', '-or']);
  const primaries = [...FIND_PRIMARIES].filter(([name]) => !OPERATORS.has(name)).map(([name, words]) => ({ name, words: words.length }));

  it.each(primaries)('$name takes $words word(s)', ({ name, words }) => {
    const missing = run('find', ['.', '-maxdepth', '0', name]).stderr;
    // A numeric test with nothing after it reports its own name as its argument.
    expect(missing.includes(`missing argument to \`${name}'`) || missing.includes(`invalid argument \`${name}' to \`${name}'`)).toBe(words > 0);
    expect(missing).not.toMatch(/unknown predicate|invalid predicate/);
  });

  it('-newerXY reads a file unless Y is t, and X is never t', () => {
    expect(run('find', ['.', '-maxdepth', '0', '-newermm', 'no-such-file']).stderr).toContain('no-such-file');
    expect(run('find', ['.', '-maxdepth', '0', '-newermt', '2020-01-01'])).toMatchObject({ status: 0, stderr: '' });
    expect(run('find', ['.', '-newertm', 'a']).stderr).toContain('invalid predicate');
  });

  it('before the expression, `-`, `)` and `,` are starting points; `!` and `(` start the expression', () => {
    for (const word of ['-', ')', ',', '!x']) expect(run('find', [word, '-maxdepth', '0']).stderr).toContain(`'${word}': No such file or directory`);
    expect(run('find', ['!', '-name', 'x', '-maxdepth', '0']).status).toBe(0);
  });
});
