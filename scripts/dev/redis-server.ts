import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port.ts';

const REDIS_SERVER = '/usr/bin/redis-server';

export interface RedisServer {
  url: string;
  port: number;
  /** Kills the server and removes its temp dir; its data is gone (nothing is persisted). */
  stop(): Promise<void>;
}

/**
 * A real redis-server (Debian package) on 127.0.0.1, with no persistence, in a temp dir.
 * Pass `port` to restart a stopped server where clients expect it ("store back" tests).
 */
export async function startRedisServer(options: { port?: number } = {}): Promise<RedisServer> {
  if (!existsSync(REDIS_SERVER)) {
    throw new Error(`${REDIS_SERVER} is missing: install it with \`apt-get install -y redis-server\` (Debian/Ubuntu), then run the tests again`);
  }
  const port = options.port ?? (await freePort());
  const dir = mkdtempSync(join(tmpdir(), 'toolgate-redis-'));
  const child = spawn(REDIS_SERVER, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => { output += chunk.toString(); });
  child.stderr.on('data', (chunk: Buffer) => { output += chunk.toString(); });
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  // A test worker that dies without cleanup must not leave a server behind.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  const stop = async () => {
    process.off('exit', killOnExit);
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitForPong(port, () => child.exitCode !== null, () => output);
  } catch (error) {
    await stop();
    throw error;
  }
  return { url: `redis://127.0.0.1:${port}`, port, stop };
}

/** Polls with a raw PING until the server answers +PONG (no client library, no reconnect noise). */
async function waitForPong(port: number, hasExited: () => boolean, output: () => string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (hasExited()) throw new Error(`redis-server exited before answering PING on port ${port}; its output:\n${output()}`);
    if (await pings(port)) return;
    await new Promise((done) => setTimeout(done, 50));
  }
  throw new Error(`redis-server did not answer PING on port ${port} within ${timeoutMs} ms; its output:\n${output()}`);
}

function pings(port: number): Promise<boolean> {
  return new Promise((done) => {
    const socket = connect(port, '127.0.0.1');
    let reply = '';
    const finish = (ok: boolean) => { socket.destroy(); done(ok); };
    socket.setTimeout(500, () => finish(false));
    socket.once('error', () => finish(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk: Buffer) => {
      reply += chunk.toString();
      if (reply.includes('\r\n')) finish(reply.startsWith('+PONG'));
    });
  });
}
