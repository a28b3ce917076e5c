import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, linkSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ExecEnvironmentError } from '../../lib/exec/environment.ts';
import { LocalExecutionEnvironment } from '../../lib/exec/local/local-environment.ts';
import { execError, makeSandbox, utf8, type Sandbox } from './helpers.ts';

/**
 * Issue 22, findings 3 and 5: the file operations act on regular files and folders only. A FIFO,
 * socket or device named by a call is refused before anything opens it (a grep on a FIFO held a
 * file-operation slot until ripgrep was killed at its timeout); met in a folder search, it is
 * skipped. A file with more than one hard link, whose other name may be outside the root, is
 * refused too, unless the operator allows hard links.
 */

/** Well under a hang's cost, so that a grep blocked on a FIFO fails quickly (as io_error, "took longer"). */
const GREP_TIMEOUT_MS = 2_000;
const SECRET = 'outside secret\n';
const NEEDLE = 'needle inside\n';
const asRoot = process.getuid?.() === 0;

let sandbox: Sandbox;
let env: LocalExecutionEnvironment;
let socketServer: Server | undefined;
let swapper: ChildProcess | undefined;

beforeEach(async () => {
  sandbox = await makeSandbox();
  env = new LocalExecutionEnvironment(sandbox.root, { grepTimeoutMs: GREP_TIMEOUT_MS });
});
afterEach(async () => {
  swapper?.kill('SIGKILL');
  swapper = undefined;
  await new Promise((resolve) => (socketServer ? socketServer.close(resolve) : resolve(undefined)));
  socketServer = undefined;
  await sandbox.cleanup();
});

const at = (name: string) => join(sandbox.root, name);

/** A listening Unix socket at `name` in the root. */
async function makeSocket(name: string): Promise<void> {
  socketServer = createServer((socket) => socket.end());
  await new Promise<void>((resolve) => socketServer?.listen(at(name), resolve));
}

/** The special files the root holds in these tests, by name; a char device (/dev/zero's numbers) only as root. */
async function makeSpecialFiles(): Promise<string[]> {
  execFileSync('mkfifo', [at('fifo')]);
  symlinkSync('fifo', at('fifo-link'));
  await makeSocket('socket');
  const names = ['fifo', 'fifo-link', 'socket'];
  if (asRoot) {
    execFileSync('mknod', [at('zero'), 'c', '1', '5']);
    names.push('zero');
  }
  return names;
}

async function refusal(operation: Promise<unknown>): Promise<ExecEnvironmentError> {
  const error = await execError(operation);
  expect(error.code, error.message).toBe('invalid_path');
  return error;
}

describe('attack: a FIFO, socket or device named by a call is refused before anything opens it', () => {
  it('grep, readFile and writeFile refuse each one, directly named or through a symlink', async () => {
    for (const name of await makeSpecialFiles()) {
      for (const [operation, attempt] of [
        ['grep', () => env.grep('x', name)],
        ['readFile', () => env.readFile(name)],
        ['writeFile', () => env.writeFile(name, utf8('x'))],
      ] as const) {
        const error = await refusal(attempt());
        expect(error.message, `${operation} ${name}`).toContain(`"${name}" is not a regular file (a FIFO, socket or device)`);
      }
    }
  });

  it('deleteFile and moveFile refuse them too (a symlink to one is a symlink, moved or deleted as one)', async () => {
    await makeSpecialFiles();
    writeFileSync(at('file.txt'), NEEDLE);
    await refusal(env.deleteFile('fifo'));
    await refusal(env.moveFile('socket', 'moved'));
    await refusal(env.moveFile('file.txt', 'fifo'));
    expect(existsSync(at('fifo')) && existsSync(at('socket')) && existsSync(at('file.txt'))).toBe(true);
    await env.moveFile('fifo-link', 'link-moved');
    await env.deleteFile('link-moved');
  });

  it('a folder search and a glob skip them, and find the regular file beside them', async () => {
    await makeSpecialFiles();
    writeFileSync(at('file.txt'), NEEDLE);
    expect(await env.grep('needle|.', '.')).toEqual([{ path: 'file.txt', line: 1, text: 'needle inside' }]);
    expect((await env.glob('*', '.')).map((match) => match.path)).toEqual(['file.txt']);
  });

  it('a regular file swapped for a FIFO while grep walks never makes it wait', async () => {
    // A command (say) renames a FIFO and a file over the same name as fast as it can: ripgrep's
    // walk saw a file, then opened the FIFO, and waited until it was killed.
    writeFileSync(at('file.txt'), NEEDLE);
    execFileSync('mkfifo', [at('fifo.spare')]);
    writeFileSync(at('plain.spare'), NEEDLE);
    const swap = `
      const fs = require('node:fs'); const at = (n) => require('node:path').join(process.argv[1], n);
      process.stdout.write('swapping\\n');
      for (;;) { fs.renameSync(at('plain.spare'), at('swapped')); fs.renameSync(at('swapped'), at('plain.spare'));
                 fs.renameSync(at('fifo.spare'), at('swapped')); fs.renameSync(at('swapped'), at('fifo.spare')); }`;
    swapper = spawn(process.execPath, ['-e', swap, sandbox.root], { stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise((resolve) => swapper?.stdout?.once('data', resolve));
    const outcomes = new Set<string>();
    for (let i = 0; i < 150 && !outcomes.has('io_error'); i++) {
      const found = await env.grep('needle', '.').catch((error: ExecEnvironmentError) => error.code);
      outcomes.add(Array.isArray(found) ? 'ok' : found);
    }
    expect(swapper.exitCode, 'the swapper ran all along').toBeNull();
    expect([...outcomes]).toEqual(['ok']);
  });
});

describe('attack: a hard link in the workspace to a file outside the root', () => {
  beforeEach(() => {
    writeFileSync(join(sandbox.outside, 'secret.txt'), SECRET);
    linkSync(join(sandbox.outside, 'secret.txt'), at('hard.txt'));
    writeFileSync(at('file.txt'), NEEDLE);
  });

  const outsideUnchanged = () => expect(readFileSync(join(sandbox.outside, 'secret.txt'), 'utf8')).toBe(SECRET);

  it('is neither read, searched nor written', async () => {
    const read = await refusal(env.readFile('hard.txt'));
    expect(read.message).toContain('"hard.txt" has 2 hard links (names), so the same file may also sit outside the environment root');
    expect(read.message).toContain('--allow-hard-links');
    await refusal(env.grep('secret', 'hard.txt'));
    expect(await env.grep('secret|needle', '.')).toEqual([{ path: 'file.txt', line: 1, text: 'needle inside' }]);
    await refusal(env.writeFile('hard.txt', utf8('pwned\n')));
    outsideUnchanged();
  });

  it('is not written through a symlink to it, nor when it replaces a file between two writes', async () => {
    symlinkSync('hard.txt', at('alias.txt'));
    await refusal(env.writeFile('alias.txt', utf8('pwned\n')));
    // A host process swaps the hard link in under a name the model writes again and again.
    const swap = `
      const fs = require('node:fs'); const at = (n) => require('node:path').join(process.argv[1], n);
      process.stdout.write('swapping\\n');
      for (;;) { fs.renameSync(at('hard.txt'), at('target.txt')); fs.renameSync(at('target.txt'), at('hard.txt'));
                 fs.renameSync(at('file.txt'), at('target.txt')); fs.renameSync(at('target.txt'), at('file.txt')); }`;
    swapper = spawn(process.execPath, ['-e', swap, sandbox.root], { stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise((resolve) => swapper?.stdout?.once('data', resolve));
    const outcomes = new Set<string>();
    for (let i = 0; i < 300; i++) {
      outcomes.add(await env.writeFile('target.txt', utf8('pwned\n')).then(() => 'written', (error: ExecEnvironmentError) => error.code));
    }
    expect(swapper.exitCode, 'the swapper ran all along').toBeNull();
    expect(outcomes.has('invalid_path'), [...outcomes].join()).toBe(true);
    outsideUnchanged();
  });

  it('is read, searched and written where the operator allows hard links', async () => {
    const allowing = new LocalExecutionEnvironment(sandbox.root, { allowHardLinks: true });
    expect(new TextDecoder().decode(await allowing.readFile('hard.txt'))).toBe(SECRET);
    expect(await allowing.grep('secret', '.')).toEqual([{ path: 'hard.txt', line: 1, text: 'outside secret' }]);
    await allowing.writeFile('hard.txt', utf8('changed\n'));
    // Written in place: the operator allowed exactly this.
    expect(readFileSync(join(sandbox.outside, 'secret.txt'), 'utf8')).toBe('changed\n');
  });

  it('is still listed, moved and deleted by name (none of which reads or writes it)', async () => {
    expect((await env.glob('*.txt', '.')).map((match) => match.path).sort()).toEqual(['file.txt', 'hard.txt']);
    await env.moveFile('hard.txt', 'moved.txt');
    await env.deleteFile('moved.txt');
    outsideUnchanged();
  });
});
