import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, truncate, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { webBase64 } from '../lib/crypto/base64.ts';
import { ExecEnvironmentError } from '../lib/exec/environment.ts';
import { MAX_READ_FILE_BYTES } from '../lib/exec/limits.ts';
import { nodeBase64 } from '../lib/exec/server/node-base64.ts';
import { RemoteExecutionEnvironment } from '../lib/exec/client/remote.ts';
import type { BenchModule, Figures } from './harness.ts';
import { progress, round } from './harness.ts';
import { median } from './stats.ts';

const MIB = 1024 * 1024;
const TOOLGATE = resolve(import.meta.dirname, '../bin/toolgate.js');

interface Server {
  pid: number;
  remote: RemoteExecutionEnvironment;
  url: string;
  stop(): Promise<void>;
}

/** `toolgate exec-server --unsandboxed` as its own process, so its memory is its own. */
async function startServer(root: string): Promise<Server> {
  const secret = crypto.randomUUID();
  const child = spawn(process.execPath, [TOOLGATE, 'exec-server', '--root', root, '--port', '0', '--tenant', 'bench', '--unsandboxed'], {
    env: { ...process.env, TOOLGATE_EXEC_SECRET: secret },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((done) => child.once('exit', (code, signal) => { if (code !== 0) process.stderr.write(`exec-server exited ${code} ${signal}:\n${output.slice(-3000)}\n`); done(); }));
  const deadline = Date.now() + 20_000;
  while (!/^commands: /m.test(output)) {
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`exec-server did not start: ${output}`);
    await pause(20);
  }
  const url = output.match(/listening on (http:\/\/127\.0\.0\.1:\d+)/)![1];
  return {
    pid: child.pid!,
    url,
    remote: new RemoteExecutionEnvironment({ url, secret, tenant: 'bench', timeoutMs: 120_000 }),
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

function pause(ms: number): Promise<void> {
  return new Promise((done) => setTimeout(done, ms));
}

/** The process's resident memory; 0 once it has exited. */
function rssMiB(pid: number): number {
  let status = '';
  try {
    status = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    // Reaped already.
  }
  const kib = status.match(/VmRSS:\s+(\d+)/)?.[1];
  return kib === undefined ? 0 : Number(kib) / 1024;
}

/**
 * Asks GET /healthz one request after another from a process of its own (this one is busy
 * decoding the answers, as the gateway would be) until its stdin closes, then prints the slowest ms.
 */
const PROBER = `
let max = 0, running = true;
process.stdin.on('end', () => (running = false)).resume();
while (running) {
  const start = performance.now();
  await fetch(process.argv[1]).then((r) => r.arrayBuffer());
  max = Math.max(max, performance.now() - start);
}
console.log(max);`;

/** Runs `work` while sampling the server's RSS and timing its /healthz: the time, the growth, the slowest answer. */
async function whileWatching(server: Server, work: () => Promise<unknown>): Promise<{ ms: number; rssGrowthMiB: number; healthzMaxMs: number }> {
  const before = rssMiB(server.pid);
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, rssMiB(server.pid))), 5);
  const prober = spawn(process.execPath, ['--input-type=module', '-e', PROBER, `${server.url}/healthz`], { stdio: ['pipe', 'pipe', 'inherit'] });
  let printed = '';
  prober.stdout.on('data', (chunk: Buffer) => (printed += chunk.toString()));
  const proberDone = new Promise<void>((done) => prober.once('exit', () => done()));
  await pause(300);
  const start = performance.now();
  let ms: number;
  try {
    await work();
    ms = performance.now() - start;
  } finally {
    prober.stdin.end();
    await proberDone;
    clearInterval(sampler);
  }
  return { ms: round(ms), rssGrowthMiB: round(peak - before), healthzMaxMs: round(Number(printed)) };
}

function encodeMs(codec: typeof webBase64, bytes: Uint8Array): number {
  return median(
    [0, 1, 2].map(() => {
      const start = performance.now();
      codec.encode(bytes);
      return performance.now() - start;
    }),
  );
}

/** 12 connections send 63 MiB each without a signature (attack/bigbody.mjs); the server's RSS growth. */
async function unsignedBodies(server: Server): Promise<number> {
  const { port, host } = new URL(server.url);
  const chunk = Buffer.alloc(MIB, 'a');
  const before = rssMiB(server.pid);
  let peak = before;
  const sockets = Array.from({ length: 12 }, () => {
    const socket = connect(Number(port), '127.0.0.1');
    socket.on('error', () => {});
    socket.write(`POST /rpc HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\nContent-Length: ${63 * MIB}\r\n\r\n`);
    return socket;
  });
  for (let i = 0; i < 63; i++) {
    await Promise.all(sockets.map((socket) => new Promise((done) => socket.write(chunk, done))));
    peak = Math.max(peak, rssMiB(server.pid));
  }
  for (const socket of sockets) socket.destroy();
  return round(peak - before);
}

export const execResources: BenchModule = {
  name: 'exec-resources',
  title: "What a model's reads and an unsigned client cost the exec-server (its own process, --unsandboxed): ms, RSS growth MiB, slowest GET /healthz meanwhile",
  async run(): Promise<Figures> {
    const root = await mkdtemp(join(tmpdir(), 'toolgate-bench-resources-'));
    try {
      const big = new Uint8Array(MAX_READ_FILE_BYTES).fill(0x61);
      await writeFile(join(root, 'limit.bin'), big);
      await writeFile(join(root, 'pack.pack'), '');
      await truncate(join(root, 'pack.pack'), 300 * 1000 * 1000);
      const figures: Figures = {
        base64_encode_32mib_web_ms: round(encodeMs(webBase64, big)),
        base64_encode_32mib_node_ms: round(encodeMs(nodeBase64, big)),
      };
      const server = await startServer(root);
      try {
        progress('exec-resources: readFile at the limit, one and 8 in parallel');
        const one = await whileWatching(server, () => server.remote.readFile('limit.bin'));
        Object.assign(figures, { read_32mib_ms: one.ms, read_32mib_rss_growth_mib: one.rssGrowthMiB, read_32mib_healthz_max_ms: one.healthzMaxMs });
        // 4 are read at once (--max-file-operations); the others wait up to 10 s for a turn, or are refused (busy).
        let refusedBusy = 0;
        const readOrRefused = () => server.remote.readFile('limit.bin').catch((error: unknown) => {
          if (!(error instanceof ExecEnvironmentError && error.code === 'unavailable')) throw error;
          refusedBusy++;
        });
        const eight = await whileWatching(server, () => Promise.all(Array.from({ length: 8 }, readOrRefused)));
        Object.assign(figures, { read_32mib_x8_parallel_ms: eight.ms, read_32mib_x8_rss_growth_mib: eight.rssGrowthMiB, read_32mib_x8_healthz_max_ms: eight.healthzMaxMs, read_32mib_x8_refused_busy: refusedBusy });
        const refused = await whileWatching(server, () => server.remote.readFile('pack.pack').catch(() => undefined));
        Object.assign(figures, { read_300mb_refused_ms: refused.ms, read_300mb_rss_growth_mib: refused.rssGrowthMiB });
        progress('exec-resources: 12 unsigned 63 MiB bodies');
        figures.unsigned_bodies_12x63mib_rss_growth_mib = await unsignedBodies(server);
      } finally {
        await server.stop();
      }
      return figures;
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  },
};
