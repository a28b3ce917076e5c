import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { classifyCommand } from '../../../lib/governance/shell/classify-command.ts';
import { optionTableOf } from '../../../lib/governance/shell/command-rule.ts';
import { FIND_PRIMARIES } from '../../../lib/governance/shell/find-rule.ts';
import { GIT_SUBCOMMANDS } from '../../../lib/governance/shell/git-rule.ts';
import { parseCommandLine, type JoiningOperator, type SimpleCommand } from '../../../lib/governance/shell/parse-command.ts';
import { READ_ONLY_PROGRAMS } from '../../../lib/governance/shell/read-only-programs.ts';
import { prng, type Prng } from '../../helpers/prng.ts';

/**
 * The classifier against bash itself. Random command lines are generated from a grammar of the
 * classified programs (their options, operands, quoting, blanks, operators, and shell syntax
 * the classifier must refuse); each line the classifier accepts is run by real bash with every
 * program replaced by a recorder (a PATH folder of symbolic links to one sh script; `enable -n`
 * turns the builtins cd, echo, pwd, true and false into PATH lookups too), and the argument
 * lists bash really produced must be exactly the simple commands the classifier judged.
 *
 * Bounded: the recorder is a script, not a shell function (nothing can recurse); every stub exits
 * at once; the whole run is one process group under `timeout -s KILL` and `ulimit -u` (as root,
 * which RLIMIT_NPROC does not bind, the run drops to uid 65534 first).
 */

/** The test's run (scripts/shell-classifier-forms.ts repeats it for the figures). */
export const DIFFERENTIAL_SEED = 22_2025;
export const DIFFERENTIAL_LINES = 8000;

export interface Mismatch {
  command: string;
  /** The exit status every stub gave in that run: 0, or 1 to take the other side of `&&`/`||`. */
  status: 0 | 1;
  classified: string[][];
  bash: string[][];
}

export interface DifferentialReport {
  generated: number;
  accepted: number;
  /** Simple commands bash ran and the classifier predicted, compared over every run. */
  compared: number;
  mismatches: Mismatch[];
  /** Whatever bash wrote to stderr (a syntax error, a program not found): must be empty. */
  bashErrors: string;
}

const BUILTINS = ['cd', 'echo', 'false', 'pwd', 'true'];
/** Arguments of each program's own kind that are not in an option table. */
const EXTRA_WORDS: Record<string, string[]> = {
  head: ['-5', '-5c', '+3'],
  tail: ['-5', '+3', '+1f', '-cf', '-f'],
  sed: ['-n', '1,5p', '/a/p', '$p', '1p;2p', '/a/w x'],
  grep: ['-5', 'TODO', 'a.*b'],
  rg: ['-f=pats', 'TODO'],
  find: [...FIND_PRIMARIES.keys(), '-newermt', '-newermm', '-newertm', 'f', '1', '-1'],
  git: ['-P', '--no-pager', '-c', 'HEAD', 'HEAD~1', 'main..HEAD', '-5', ...GIT_SUBCOMMANDS.keys()],
  cd: ['src', '-', '..'],
};
/** Operands: plain, with blanks and quotes inside, paths inside and out, option-looking, empty, special. */
const OPERANDS = [
  ...['src', 'README.md', 'a b', "it's", 'say "hi"', 'back\\slash', '-', '--', 'x=y', '../up', '/etc/passwd', '5', '+3', '-5', '', 'é', 'a\tb'],
  // characters that mean something to bash, to be quoted or escaped
  ...['%h', 'HEAD~2', 'a;b', 'a&&b', 'a|b', '(x)', '<x>', 'a`b', '#x', '~x', '!', '$x', '*', '{a,b}', 'a\\`b', '\\$'],
];
/** Raw text that means something to bash: expansions, globs, redirections, comments, broken quotes. */
const SHELL_SYNTAX = ['$HOME', '"$x"', '`id`', '$(id)', '*', '?', '[ab]', '~', '~/x', 'a=~', '#c', '{a,b}', '{', '}', '"open', "'open", '\\', '>f', '<f', '2>&1', '&', '(', ')', '!', '\n', '\\\n', '%1', '$\'x\'', 'a\\#b'];
const OPERATORS: JoiningOperator[] = ['&&', '||', ';', '|'];
const ODD_OPERATORS = ['&', ';;', '|&', '>', '>>', '<', '<<<', '&>', ';&'];

/** Characters a bare word may hold as they are; every other one is escaped or quoted. */
const SAFE_BARE = /^[A-Za-z0-9_./,:+@%^=-]$/;

function bare(word: string, random: Prng): string {
  if (word === '') return random.chance(0.5) ? "''" : '""';
  return [...word].map((char) => (SAFE_BARE.test(char) && !random.chance(0.05) ? char : `\\${char}`)).join('');
}

const singleQuoted = (word: string) => `'${word.replaceAll("'", "'\\''")}'`;
const doubleQuoted = (word: string) => `"${word.replace(/[\\"$`]/g, (char) => `\\${char}`)}"`;

/** The word as bash should read it back, quoted one of several ways (or pieces of it each its own way). */
function quoted(word: string, random: Prng, depth = 0): string {
  const style = random.int(depth === 0 ? 5 : 3);
  if (style === 0) return bare(word, random);
  if (style === 1) return singleQuoted(word);
  if (style === 2) return doubleQuoted(word);
  if (style === 3 && word.length > 1) {
    const cut = 1 + random.int(word.length - 1);
    return quoted(word.slice(0, cut), random, 1) + quoted(word.slice(cut), random, 1);
  }
  return `${random.chance(0.5) ? "''" : '""'}${quoted(word, random, 1)}`;
}

function optionWords(program: string, subcommand?: string): string[] {
  const check = subcommand ? GIT_SUBCOMMANDS.get(subcommand) : READ_ONLY_PROGRAMS.get(program);
  const options = check ? [...(optionTableOf(check)?.keys() ?? [])] : [];
  return [...options, ...(EXTRA_WORDS[program] ?? [])];
}

/** An option, sometimes with a value attached (`--lines=5`, `-n5`). */
function optionWord(pool: readonly string[], random: Prng): string {
  const option = pool.length > 0 ? random.pick(pool) : random.pick(OPERANDS);
  if (!option.startsWith('-') || !random.chance(0.25)) return option;
  const value = random.pick(['5', 'x', '', '=a', '/etc/passwd', '--']);
  return option.startsWith('--') ? `${option}=${value}` : `${option}${value}`;
}

/** One simple command as text: the program, then words, each quoted or left raw. */
function simpleCommandText(random: Prng): string {
  const program = random.chance(0.03) ? random.pick(['rm', 'sh', 'x=1', 'env']) : random.pick([...READ_ONLY_PROGRAMS.keys()]);
  const words = [program];
  let pool = optionWords(program);
  if (program === 'git') {
    if (random.chance(0.2)) words.push(random.pick(['-P', '--no-pager', '--literal-pathspecs']));
    const subcommand = random.pick([...GIT_SUBCOMMANDS.keys()]);
    words.push(subcommand);
    pool = [...optionWords('git', subcommand), 'HEAD', 'HEAD~1', '-5'];
  }
  for (let count = random.int(5); count > 0; count--) words.push(random.chance(0.6) ? optionWord(pool, random) : random.pick(OPERANDS));
  const texts = words.map((word, index) => (index === 0 && random.chance(0.8) ? word : quoted(word, random)));
  if (random.chance(0.12)) texts.splice(random.int(texts.length + 1), 0, random.pick(SHELL_SYNTAX));
  return texts.join(random.chance(0.9) ? ' ' : random.pick(['  ', '\t', ' \t ']));
}

function operatorText(random: Prng): string {
  const operator = random.chance(0.04) ? random.pick(ODD_OPERATORS) : random.pick(OPERATORS);
  return `${random.pick(['', ' ', ' ', '\t'])}${operator}${random.pick(['', ' ', ' '])}`;
}

/** One character bash reads specially, dropped anywhere in a line (inside quotes or out). */
const STRAY = [...'$`\\\'"!#~*?[]{}();&|<> \t=%^,:@-'];

export function randomCommandLine(random: Prng): string {
  let line = simpleCommandText(random);
  for (let more = random.int(3); more > 0; more--) line += operatorText(random) + simpleCommandText(random);
  if (random.chance(0.2)) {
    const at = random.int(line.length + 1);
    line = line.slice(0, at) + random.pick(STRAY) + line.slice(at);
  }
  return line;
}

/**
 * Which simple commands run when every program exits with `status`: a pipeline after `&&` runs
 * on 0, after `||` on anything else, after `;` always; every command of a pipeline runs.
 */
export function commandsThatRun(commands: readonly SimpleCommand[], operators: readonly JoiningOperator[], status: 0 | 1): string[][] {
  return commands.flatMap((words, index) => {
    let before = index - 1;
    while (before >= 0 && operators[before] === '|') before -= 1;
    const joinedBy = before < 0 ? ';' : operators[before];
    const runs = joinedBy === ';' || (joinedBy === '&&') === (status === 0);
    return runs ? [[...words]] : [];
  });
}

const sorted = (commands: readonly string[][]) => commands.map((words) => JSON.stringify(words)).sort();

interface AcceptedLine {
  command: string;
  runs: Array<{ status: 0 | 1; expected: string[][] }>;
}

/** Under a process limit: as root (which RLIMIT_NPROC does not bind) as uid 65534, else this user's processes plus room. */
function limitedUser(): { prefix: string[]; processLimit: number } {
  if (process.getuid?.() === 0) return { prefix: ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups'], processLimit: 256 };
  const uid = process.getuid?.();
  const mine = readdirSync('/proc').filter((name) => /^\d+$/.test(name) && statSync(`/proc/${name}`, { throwIfNoEntry: false })?.uid === uid).length;
  return { prefix: [], processLimit: mine + 128 };
}

const RECORDER = `#!/bin/sh
# Stands in for every program: its name and arguments, each ended by NUL, in a file of its own.
printf '%s\\0' "\${0##*/}" "$@" > "$TG_OUT.$$"
exit "$TG_STATUS"
`;

/** Scripts of at most this many characters: one bash -c argument each (Linux caps one at 128 KiB). */
const SCRIPT_CHARS = 60_000;

function batchScripts(lines: readonly AcceptedLine[], bin: string, out: string): string[] {
  const header = `PATH=${bin}\nenable -n ${BUILTINS.join(' ')}\nexport TG_OUT TG_STATUS\n`;
  const scripts: string[] = [];
  let script = header;
  lines.forEach((line, index) => {
    const text = line.runs.map(({ status }) => `TG_OUT=${out}/${index}.${status} TG_STATUS=${status}\n${line.command}\n`).join('');
    if (script.length + text.length > SCRIPT_CHARS && script !== header) {
      scripts.push(script);
      script = header;
    }
    script += text;
  });
  return [...scripts, script];
}

/** Runs every accepted line through bash, each run recording into out/<line>.<status>.<pid>. */
function runInBash(lines: readonly AcceptedLine[], timeoutSeconds: number): { recorded: Map<string, string[][]>; bashErrors: string } {
  const dir = mkdtempSync(join(tmpdir(), 'toolgate-bash-diff-'));
  try {
    const [bin, out, batches] = ['bin', 'out', 'batches'].map((name) => join(dir, name));
    for (const folder of [bin, out, batches]) mkdirSync(folder);
    chmodSync(dir, 0o755);
    chmodSync(out, 0o777);
    writeFileSync(join(bin, '.record'), RECORDER, { mode: 0o755 });
    for (const program of READ_ONLY_PROGRAMS.keys()) symlinkSync('.record', join(bin, program));
    batchScripts(lines, bin, out).forEach((script, index) => writeFileSync(join(batches, String(index).padStart(4, '0')), script));
    const { prefix, processLimit } = limitedUser();
    const driver = `ulimit -u ${processLimit} || exit 97\nfor batch in ${batches}/*; do /bin/bash -c "$(< "$batch")"; done\nexit 0\n`;
    const ran = spawnSync('timeout', ['-s', 'KILL', String(timeoutSeconds), ...prefix, '/bin/bash', '-c', driver], {
      env: { PATH: '/usr/bin:/bin', LANG: 'C.UTF-8', HOME: dir },
      stdio: ['ignore', 'pipe', 'pipe'],
      encoding: 'utf8',
      timeout: (timeoutSeconds + 10) * 1000,
      killSignal: 'SIGKILL',
    });
    if (ran.status !== 0) throw new Error(`the bash run ended with status ${ran.status} (${ran.signal ?? 'no signal'}; 137 is the timeout): ${ran.stderr.slice(0, 500)}`);
    const recorded = new Map<string, string[][]>();
    for (const name of readdirSync(out)) {
      const key = name.slice(0, name.lastIndexOf('.'));
      const words = readFileSync(join(out, name), 'utf8').split('\0').slice(0, -1);
      recorded.set(key, [...(recorded.get(key) ?? []), words]);
    }
    return { recorded, bashErrors: ran.stderr };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Generates `count` lines from `seed`, classifies them, and compares every accepted one with bash. */
export function runDifferential({ seed, count, timeoutSeconds = 50 }: { seed: number; count: number; timeoutSeconds?: number }): DifferentialReport {
  const random = prng(seed);
  const accepted: AcceptedLine[] = [];
  for (let n = 0; n < count; n++) {
    const command = randomCommandLine(random);
    if (!classifyCommand(command).read_only) continue;
    const parsed = parseCommandLine(command);
    if (!parsed.ok) throw new Error(`classified read-only but not parsed: ${JSON.stringify(command)}`);
    const statuses: Array<0 | 1> = parsed.operators.some((operator) => operator === '&&' || operator === '||') ? [0, 1] : [0];
    accepted.push({ command, runs: statuses.map((status) => ({ status, expected: commandsThatRun(parsed.commands, parsed.operators, status) })) });
  }
  const { recorded, bashErrors } = runInBash(accepted, timeoutSeconds);
  const mismatches: Mismatch[] = [];
  let compared = 0;
  accepted.forEach(({ command, runs }, index) => {
    for (const { status, expected } of runs) {
      const bash = recorded.get(`${index}.${status}`) ?? [];
      compared += expected.length;
      if (JSON.stringify(sorted(bash)) !== JSON.stringify(sorted(expected))) mismatches.push({ command, status, classified: expected, bash });
    }
  });
  return { generated: count, accepted: accepted.length, compared, mismatches, bashErrors };
}
