import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseCommandLine } from '../../../lib/governance/shell/parse-command.ts';
import { READ_ONLY_PROGRAMS } from '../../../lib/governance/shell/read-only-programs.ts';
import { READ_ONLY } from './commands.ts';

/**
 * The parser must read a command exactly as bash does, or the classifier judges a command that
 * is not the one that runs. Checked against bash itself: every program is replaced by a shell
 * function that records its words (functions win over builtins and PATH; PATH is empty, so
 * nothing real can run), and the words bash passed must be the words the parser found.
 * Each line runs twice, with every function failing and then succeeding, so both sides of
 * `&&` and `||` are seen; pipelines run in parallel, so commands are compared as sorted lists.
 */
const scratch = mkdtempSync(join(tmpdir(), 'toolgate-parse-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const RECORD_END = '\u0001';

function wordsBashRuns(command: string): string[][] {
  const out = join(scratch, 'words');
  rmSync(out, { force: true });
  const functions = [...READ_ONLY_PROGRAMS.keys()]
    .map((name) => `${name}() { printf '%s\\0' ${name} "$@" >> "$TG_OUT"; printf '${RECORD_END}' >> "$TG_OUT"; return $TG_STATUS; }`)
    .join('\n');
  const script = `${functions}\nTG_STATUS=1\n${command}\nTG_STATUS=0\n${command}\n`;
  // stdin closed, as the exec-server runs commands: bash reads ~/.bashrc when stdin is a socket.
  const ran = spawnSync('/bin/bash', ['-c', script], { cwd: scratch, env: { PATH: '/nonexistent', HOME: scratch, TG_OUT: out }, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
  expect(ran.stderr).toBe('');
  const recorded = readFileSync(out, 'utf8');
  const commands = recorded.split(RECORD_END).filter(Boolean).map((record) => record.split('\0').slice(0, -1));
  return unique(commands);
}

function unique(commands: readonly (readonly string[])[]): string[][] {
  const keys = [...new Set(commands.map((words) => JSON.stringify(words)))].sort();
  return keys.map((key) => JSON.parse(key) as string[]);
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
    const parsed = parseCommandLine(line);
    if (!parsed.ok) throw new Error(`not parsed: ${parsed.reason}`);
    expect(unique(parsed.commands)).toEqual(wordsBashRuns(line));
  });
});
