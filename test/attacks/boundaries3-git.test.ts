import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CommandSandbox } from '../../lib/exec/sandbox/command-sandbox.ts';
import { classifyCommand } from '../../lib/governance/shell/classify-command.ts';
import { LocalExecutionEnvironment } from '../../lib/exec/local/local-environment.ts';
import { bubblewrapSandbox, makeSandbox, type Sandbox } from '../exec/helpers.ts';

/**
 * Boundaries round 3, attacked: git under a read-only grant. The classifier refuses a log format
 * with %G placeholders (verifying a signature runs gpg), and the git guard pins
 * log.showSignature off; a repository's named format (`pretty.<name>`, a section the guard took
 * for safe) brought the same placeholders in by name: `git log --format=sig` ran gpg.
 */
let commands: CommandSandbox;
let sandbox: Sandbox;
let env: LocalExecutionEnvironment;

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], {
    cwd,
    encoding: 'utf8',
    env: { PATH: process.env.PATH, HOME: sandbox.base, GIT_CONFIG_NOSYSTEM: '1' },
  });
}

/** A repository whose one commit carries a (made-up) signature, so %G placeholders have something to verify. */
function signedRepository(name: string): string {
  const folder = join(sandbox.root, name);
  mkdirSync(folder, { recursive: true });
  git(folder, 'init', '-q', '-b', 'main');
  writeFileSync(join(folder, 'a.txt'), 'one\n');
  git(folder, 'add', '.');
  git(folder, 'commit', '-qm', 'first');
  const tree = git(folder, 'rev-parse', 'HEAD^{tree}').trim();
  const signature = ['-----BEGIN PGP SIGNATURE-----', '', 'iQEzBAABCAAdFiEE', '=abcd', '-----END PGP SIGNATURE-----'].join('\n ');
  const commit = `tree ${tree}\nauthor t <t@example.com> 1700000000 +0000\ncommitter t <t@example.com> 1700000000 +0000\ngpgsig ${signature}\n\nsigned\n`;
  writeFileSync(join(folder, '.git', 'signed-commit'), commit);
  const id = git(folder, 'hash-object', '-t', 'commit', '-w', '--literally', '.git/signed-commit').trim();
  git(folder, 'update-ref', 'refs/heads/main', id);
  return folder;
}

beforeAll(async () => {
  commands = await bubblewrapSandbox();
  sandbox = await makeSandbox();
  env = new LocalExecutionEnvironment(sandbox.root, { sandbox: commands });
}, 60_000);
afterAll(async () => {
  await commands?.close();
  await sandbox?.cleanup();
});

describe('attack: a granted git log never verifies signatures (never runs gpg)', () => {
  it('a format with %G placeholders named by the repository (pretty.<name>) is refused like one on the command line', async () => {
    const folder = signedRepository('signed');
    git(folder, 'config', 'pretty.sig', '%G? %GG');
    // Both commands are granted by the read-only class: the format is only a name to it.
    for (const command of ['cd signed && git log --format=sig', 'cd signed && git log --pretty=sig', 'cd signed && git show -s --format=sig']) {
      expect(classifyCommand(command), command).toEqual({ read_only: true });
      const result = await env.execCommand(`${command}; test -e /tmp/.gnupg && echo GPG-RAN; true`, { read_only: true, timeout_ms: 20_000 });
      const output = `${result.stdout}\n${result.stderr}`;
      expect(output, command).not.toContain('GPG-RAN');
      expect(output, command).not.toMatch(/gpg:/);
      expect(output, command).toContain('toolgate: git was not run');
      expect(output, command).toContain('pretty.sig');
    }
  });
});
