import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RemoteExecutionEnvironment } from '../../lib/exec/client/remote.ts';
import { REPO_ROOT } from '../helpers/processes.ts';
import { makeSandbox, type Sandbox } from './helpers.ts';

const SECRET = 'inherited-fds-secret-0123456789abcdef0123';
const HOST_SECRET = 'host-secret-the-command-must-not-read';
const SECRET_FD = 20;
const LOG_FD = 21;

let sandbox: Sandbox;
beforeEach(async () => {
  sandbox = await makeSandbox();
});
afterEach(() => sandbox.cleanup());

interface StartedServer {
  child: ChildProcess;
  remote: RemoteExecutionEnvironment;
  stop(): Promise<void>;
}

/**
 * `toolgate exec-server ... 20<secret 21>>host.log`: an exec-server started with two more open
 * descriptors than stdio, one reading a host file outside the root, one appending to another.
 */
async function startWithExtraFds(extraArgs: string[], env: NodeJS.ProcessEnv = {}): Promise<StartedServer> {
  writeFileSync(join(sandbox.outside, 'secret.txt'), HOST_SECRET);
  writeFileSync(join(sandbox.outside, 'host.log'), 'host log\n');
  const secretFd = openSync(join(sandbox.outside, 'secret.txt'), 'r');
  const logFd = openSync(join(sandbox.outside, 'host.log'), 'a');
  const stdio: Array<'ignore' | 'pipe' | number> = ['ignore', 'pipe', 'pipe'];
  while (stdio.length < SECRET_FD) stdio.push('ignore');
  stdio.push(secretFd, logFd);
  const args = ['bin/toolgate.js', 'exec-server', '--root', sandbox.root, '--port', '0', '--tenant', 'demo', ...extraArgs];
  const child = spawn(process.execPath, args, { cwd: REPO_ROOT, env: { ...process.env, TOOLGATE_EXEC_SECRET: SECRET, ...env }, stdio });
  closeSync(secretFd);
  closeSync(logFd);
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  const deadline = Date.now() + 20_000;
  while (!/^commands: /m.test(output)) {
    if (Date.now() > deadline || child.exitCode !== null) {
      await stop();
      throw new Error(`the exec-server did not start:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  const url = output.match(/listening on (http:\/\/127\.0\.0\.1:\d+)/)![1];
  return { child, remote: new RemoteExecutionEnvironment({ url, secret: SECRET, tenant: 'demo' }), stop };
}

/** The descriptors the server itself holds at 20 and 21: the attack's precondition. */
function expectServerHoldsThem(child: ChildProcess): void {
  expect(readlinkSync(`/proc/${child.pid}/fd/${SECRET_FD}`)).toBe(join(sandbox.outside, 'secret.txt'));
  expect(readlinkSync(`/proc/${child.pid}/fd/${LOG_FD}`)).toBe(join(sandbox.outside, 'host.log'));
}

async function attack(remote: RemoteExecutionEnvironment, readOnly: boolean) {
  const read = await remote.execCommand(`cat <&${SECRET_FD}`, { read_only: readOnly });
  const write = await remote.execCommand(`echo pwned >&${LOG_FD}`, { read_only: readOnly });
  // A bash glob lists the folder with a descriptor of its own (3), open while it reads it.
  const listed = await remote.execCommand('for entry in /proc/self/fd/*; do echo "${entry##*/}"; done', { read_only: readOnly });
  return { read, write, listed };
}

describe('attack: descriptors the exec-server inherited reach the commands', () => {
  it('sandboxed, even read_only: the command cannot read or write through them, and has only stdin, stdout and stderr', async () => {
    const server = await startWithExtraFds([]);
    try {
      expectServerHoldsThem(server.child);
      for (const readOnly of [true, false]) {
        const { read, write, listed } = await attack(server.remote, readOnly);
        expect(read.stdout).not.toContain(HOST_SECRET);
        expect(read.stderr).toContain(`${SECRET_FD}: Bad file descriptor`);
        expect(write.exit_code).not.toBe(0);
        expect(write.stderr).toContain(`${LOG_FD}: Bad file descriptor`);
        expect(listed.stdout).toBe('0\n1\n2\n3\n');
      }
      expect(readFileSync(join(sandbox.outside, 'host.log'), 'utf8')).toBe('host log\n');
    } finally {
      await server.stop();
    }
  });

  it('--unsandboxed: the same', async () => {
    const server = await startWithExtraFds(['--unsandboxed']);
    try {
      expectServerHoldsThem(server.child);
      const { read, write, listed } = await attack(server.remote, false);
      expect(read.stdout).not.toContain(HOST_SECRET);
      expect(read.stderr).toContain(`${SECRET_FD}: Bad file descriptor`);
      expect(write.stderr).toContain(`${LOG_FD}: Bad file descriptor`);
      expect(listed.stdout).toBe('0\n1\n2\n3\n');
      expect(readFileSync(join(sandbox.outside, 'host.log'), 'utf8')).toBe('host log\n');
    } finally {
      await server.stop();
    }
  });

  it('nothing the caller puts in the environment runs before the descriptors are closed', async () => {
    writeFileSync(join(sandbox.root, 'early.sh'), `cat <&${SECRET_FD} > ${join(sandbox.root, 'leaked.txt')}\n`);
    const server = await startWithExtraFds(['--unsandboxed']);
    try {
      const env = { BASH_ENV: join(sandbox.root, 'early.sh'), 'BASH_FUNC_exec%%': `() { cat <&${SECRET_FD} > ${join(sandbox.root, 'leaked2.txt')}; }` };
      const result = await server.remote.execCommand('true', { env });
      expect(result.exit_code).toBe(0);
      for (const name of ['leaked.txt', 'leaked2.txt']) {
        let leaked = '';
        try {
          leaked = readFileSync(join(sandbox.root, name), 'utf8');
        } catch {
          // Not even created: fine.
        }
        expect(leaked).not.toContain(HOST_SECRET);
      }
    } finally {
      await server.stop();
    }
  });
});
