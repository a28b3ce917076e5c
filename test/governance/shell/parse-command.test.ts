import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseCommandLine } from '../../../lib/governance/shell/parse-command.ts';
import { READ_ONLY_PROGRAMS } from '../../../lib/governance/shell/read-only-programs.ts';
import { READ_ONLY } from './commands.ts';

/**
 * The parser must read a command exactly as bash does, or the classifier judges a command that
 * is not the one that runs. Checked against bash itself: every program is replaced by a shell
 * function that records its words (functions win over builtins; PATH is empty, so any other
 * word lands in command_not_found_handle, which records too, and nothing real can run), and the
 * words bash passed must be the words the parser found. Each line runs twice, with every
 * command failing and then succeeding, so both sides of `&&` and `||` are seen; pipelines run
 * in parallel, so commands are compared as sorted lists.
 */
const scratch = mkdtempSync(join(tmpdir(), 'toolgate-parse-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** One write per record (words, then \x01), so the commands of a pipeline cannot interleave. */
const RECORD = `printf '%s\\0' "$@" $'\\1' >> "$TG_OUT"; return $TG_STATUS`;
const RECORDERS = [
  `command_not_found_handle() { ${RECORD}; }`,
  ...[...READ_ONLY_PROGRAMS.keys()].map((name) => `${name}() { set -- ${name} "$@"; ${RECORD}; }`),
].join('\n');

function wordsBashRuns(command: string): string[][] {
  const out = join(scratch, 'words');
  rmSync(out, { force: true });
  const script = `${RECORDERS}\nTG_STATUS=1\n${command}\nTG_STATUS=0\n${command}\n`;
  // stdin closed, as the exec-server runs commands: bash reads ~/.bashrc when stdin is a socket.
  const ran = spawnSync('/bin/bash', ['-c', script], { cwd: scratch, env: { PATH: '/nonexistent', HOME: scratch, TG_OUT: out }, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
  expect(ran.stderr).toBe('');
  const recorded = existsSync(out) ? readFileSync(out, 'utf8') : '';
  return unique(recorded.split('\u0001\0').filter(Boolean).map((record) => record.split('\0').slice(0, -1)));
}

function unique(commands: readonly (readonly string[])[]): string[][] {
  const keys = [...new Set(commands.map((words) => JSON.stringify(words)))].sort();
  return keys.map((key) => JSON.parse(key) as string[]);
}

function expectBashAgrees(line: string): void {
  const parsed = parseCommandLine(line);
  if (!parsed.ok) throw new Error(`not parsed: ${parsed.reason}`);
  expect(unique(parsed.commands)).toEqual(wordsBashRuns(line));
}

const PLAIN_LINES = [
  'ls -la src',
  "grep -n 'a b' \"c d\" e\\ f",
  "echo 'single $HOME `id` *' \"double \\\" \\\\ \\a\" \\; \\& \\|",
  "echo a'b'\"c\"d '' \"\"",
  "echo ';' '&&' '|' '>' '<' '(' ')'",
  'echo a\\ b\\\tc \\\\ \\"',
  'echo ! !x x! a=b -- -',
  "echo 'it''s' \"it's\"",
  'git log HEAD~2..HEAD --format=%h',
  'echo é ü 你好 \u{1F600}',
  'echo a\tb',
  'ls; pwd && echo x || echo y | cat',
  'cat a|grep b|wc -l',
  'ls&&pwd||true;echo',
];

describe('parseCommandLine agrees with bash', () => {
  it.each([...PLAIN_LINES, ...READ_ONLY])('%s', (line) => {
    expectBashAgrees(line);
  });

  it('on random lines (seeded): whatever it accepts, bash splits into the same commands and words', () => {
    // Every character that matters to either parser but `/` (bash would run a path).
    const alphabet = [...'ab x\t\'"\\;&|-=~#,.@^+$*{}()<>?[]`!é'];
    let seed = 20_260_101;
    const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648;
    let accepted = 0;
    for (let n = 0; n < 1500; n++) {
      let line = random() < 0.5 ? 'a ' : 'a';
      for (let length = 1 + Math.floor(random() * 24); length > 0; length--) line += alphabet[Math.floor(random() * alphabet.length)];
      const parsed = parseCommandLine(line);
      // Only programs bash looks up: not `x=y` (an assignment; the classifier refuses it) nor `.`, `[`, `!`, `%x` (builtins, keywords, jobs; never in the table).
      if (!parsed.ok || parsed.commands.some(([program]) => !/^[abxé]/.test(program) || /^\w+\+?=/.test(program))) continue;
      accepted += 1;
      expectBashAgrees(line);
    }
    expect(accepted).toBeGreaterThan(50);
  });
});
