import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ExecEnvironmentError } from '../../lib/exec/environment.ts';
import { LocalExecutionEnvironment } from '../../lib/exec/local/local-environment.ts';
import { makeSandbox, utf8, type Sandbox } from './helpers.ts';

const INSIDE = 'inside';
const OUTSIDE = 'outside secret';
/** Rounds of attempts per test: enough for the swap to hit every window (the old code failed within a few dozen). */
const ITERATIONS = 600;

/**
 * Swaps root/dir between the real folder root/dir-real and a symlink to the outside folder, as
 * fast as it can, in its own process. Renames leave gaps where `dir` is missing; a folder the
 * environment creates at `dir` in such a gap is removed so the swapping goes on.
 */
const SWAPPER = `
const fs = require('node:fs');
const path = require('node:path');
const at = (name) => path.join(process.argv[1], name);
function move(from, to) {
  for (;;) {
    try { return fs.renameSync(at(from), at(to)); } catch (error) {
      if (!['ENOTEMPTY', 'EEXIST', 'ENOTDIR', 'EISDIR'].includes(error.code)) throw error;
      try { fs.rmSync(at(to), { recursive: true, force: true }); } catch {}
    }
  }
}
process.stdout.write('swapping\\n');
for (;;) { move('dir-real', 'dir'); move('dir', 'dir-real'); move('dir-link', 'dir'); move('dir', 'dir-link'); }
`;

let sandbox: Sandbox;
let env: LocalExecutionEnvironment;
let swapper: ChildProcess | undefined;

beforeEach(async () => {
  sandbox = await makeSandbox();
  env = new LocalExecutionEnvironment(sandbox.root);
  await mkdir(join(sandbox.root, 'dir-real'));
  await writeFile(join(sandbox.root, 'dir-real', 'secret.txt'), INSIDE);
  await symlink(sandbox.outside, join(sandbox.root, 'dir-link'));
  await writeFile(join(sandbox.outside, 'secret.txt'), OUTSIDE);
  await writeFile(join(sandbox.outside, 'outside-only.txt'), OUTSIDE);
  await writeFile(join(sandbox.outside, 'victim.txt'), OUTSIDE);
});
afterEach(async () => {
  swapper?.kill('SIGKILL');
  await new Promise((resolve) => (swapper?.exitCode === null ? swapper.once('exit', resolve) : resolve(undefined)));
  await sandbox.cleanup();
});

async function startSwapping(): Promise<void> {
  swapper = spawn(process.execPath, ['-e', SWAPPER, sandbox.root], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise((resolve) => swapper?.stdout?.once('data', resolve));
}

/** What an attempt answered: its value, or the code of the environment error it threw. */
async function outcome<T>(attempt: Promise<T>): Promise<T | string> {
  try {
    return await attempt;
  } catch (error) {
    if (error instanceof ExecEnvironmentError) return error.code;
    throw error;
  }
}

async function outsideUntouched(): Promise<void> {
  expect(swapper?.exitCode, 'the swapper ran all along').toBeNull();
  expect((await readdir(sandbox.outside)).sort()).toEqual(['outside-only.txt', 'secret.txt', 'victim.txt']);
  for (const name of ['outside-only.txt', 'secret.txt', 'victim.txt']) expect(await readFile(join(sandbox.outside, name), 'utf8')).toBe(OUTSIDE);
  expect(existsSync(join(sandbox.root, 'stolen.txt'))).toBe(false);
}

describe('attack: a folder swapped for a symlink to outside while it is used', () => {
  it('never reads an outside byte, whatever the timing', async () => {
    await startSwapping();
    const seen = new Set<string>();
    let readInside = 0;
    for (let i = 0; i < ITERATIONS; i++) {
      const [read, stat, listed, globbed] = await Promise.all([
        outcome(env.readFile('dir/secret.txt')),
        outcome(env.stat('dir/secret.txt')),
        outcome(env.listDirectory('dir', 1)),
        outcome(env.glob('*', 'dir')),
      ]);
      if (read instanceof Uint8Array) {
        const text = new TextDecoder().decode(read);
        expect(text).toBe(INSIDE);
        readInside++;
      } else {
        seen.add(read);
      }
      if (stat !== null && typeof stat === 'object') expect(stat.size).toBe(INSIDE.length);
      if (Array.isArray(listed)) expect(listed.map((entry) => entry.path)).not.toContain('dir/outside-only.txt');
      if (Array.isArray(globbed)) expect(globbed.map((match) => match.path)).not.toContain('dir/outside-only.txt');
    }
    // The race was real: some reads found the folder, others the symlink or nothing.
    expect(readInside).toBeGreaterThan(0);
    expect([...seen].every((code) => ['not_found', 'outside_root'].includes(code))).toBe(true);
    await outsideUntouched();
  });

  it('never writes, truncates, deletes or moves anything outside', async () => {
    await startSwapping();
    let written = 0;
    for (let i = 0; i < ITERATIONS; i++) {
      const results = await Promise.all([
        outcome(env.writeFile('dir/secret.txt', utf8(INSIDE))),
        outcome(env.writeFile('dir/created.txt', utf8('pwned'))),
        outcome(env.deleteFile('dir/victim.txt')),
        outcome(env.moveFile('dir/outside-only.txt', 'stolen.txt')),
        outcome(env.moveFile('dir/created.txt', 'dir/moved.txt')),
      ]);
      if (results[0] === undefined) written++;
    }
    expect(written).toBeGreaterThan(0);
    await outsideUntouched();
    expect(existsSync(join(sandbox.outside, 'created.txt'))).toBe(false);
    expect(existsSync(join(sandbox.outside, 'moved.txt'))).toBe(false);
  });

  it('never searches outside or starts a command there', async () => {
    await startSwapping();
    const pwds = new Set<string>();
    for (let i = 0; i < ITERATIONS / 6; i++) {
      const [grep, command] = await Promise.all([outcome(env.grep('secret|inside', 'dir')), outcome(env.execCommand('pwd', { cwd: 'dir' }))]);
      if (Array.isArray(grep)) expect(grep.map((match) => match.text)).not.toContain(OUTSIDE);
      if (typeof command === 'object') pwds.add(command.stdout.trim());
    }
    const root = await env.workingDirectory();
    expect([...pwds].every((pwd) => pwd.startsWith(`${root}/`))).toBe(true);
    await outsideUntouched();
  });

  it('never searches outside through a folder swapped below where grep starts (ripgrep reads only the descriptors the walk checked)', async () => {
    await startSwapping();
    let foundInside = 0;
    for (let i = 0; i < ITERATIONS / 6; i++) {
      const matches = await env.grep('secret|inside', '.');
      expect(matches.map((match) => match.text)).not.toContain(OUTSIDE);
      if (matches.some((match) => match.text === INSIDE)) foundInside++;
    }
    expect(foundInside).toBeGreaterThan(0);
    await outsideUntouched();
  });
});
