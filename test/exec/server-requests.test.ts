import { existsSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { signBody } from '../../lib/crypto/signed-request.ts';
import { encodeBase64 } from '../../lib/crypto/base64.ts';
import { LocalExecutionEnvironment } from '../../lib/exec/local/local-environment.ts';
import { RemoteExecutionEnvironment } from '../../lib/exec/client/remote.ts';
import { newNonce } from '../../lib/exec/rpc-protocol.ts';
import { startExecServer, type ExecServer } from '../../lib/exec/server/exec-server.ts';
import { hostsServed } from '../../lib/exec/server/origins.ts';
import { spawnNode } from '../helpers/processes.ts';
import { execError, makeSandbox, toolError, unsandboxed, utf8, waitUntil, type Sandbox } from './helpers.ts';

const SECRET = 'server-requests-secret-0123456789abcdef01';
const TENANT = 'acme';
const MIB = 1024 * 1024;

let sandbox: Sandbox;
beforeEach(async () => {
  sandbox = await makeSandbox();
});
afterEach(() => sandbox.cleanup());

const writeBody = (path: string, content: Uint8Array) =>
  JSON.stringify({ method: 'writeFile', params: { path, content_base64: encodeBase64(content) }, tenant: TENANT, nonce: newNonce() });

/** A raw HTTP/1.1 request whose body is sent in parts, when the test says: a slow client. */
interface SlowRequest {
  sendRest(): void;
  answer: Promise<{ status: number; text: string }>;
}

function slowRequest(url: string, headers: Record<string, string>, body: string | Buffer, firstPart: number): SlowRequest {
  const { port } = new URL(url);
  const bytes = Buffer.from(body);
  const socket: Socket = connect(Number(port), '127.0.0.1');
  socket.on('error', () => {});
  const lines = [`POST /rpc HTTP/1.1`, `Host: 127.0.0.1:${port}`, 'Connection: close', ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`)];
  socket.write(`${lines.join('\r\n')}\r\n\r\n`);
  socket.write(bytes.subarray(0, firstPart));
  let received = '';
  socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
  const answer = new Promise<{ status: number; text: string }>((resolve) => socket.on('close', () => resolve({ status: Number(received.split(' ')[1]), text: received })));
  // Written, not ended: a client that half-closes its side has its request dropped by Node.
  return { sendRest: () => socket.write(bytes.subarray(firstPart)), answer };
}

/**
 * A signed request over a raw socket whose answer the test takes when it chooses: the socket is
 * paused once the answer starts to arrive, so the server cannot hand all of a large one over.
 */
async function unreadAnswer(url: string, body: string): Promise<{ socket: Socket; answerStarted: Promise<void> }> {
  const { port, host } = new URL(url);
  const socket = connect(Number(port), '127.0.0.1');
  socket.on('error', () => {});
  const headers = { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), ...(await signBody(SECRET, body)) };
  const lines = ['POST /rpc HTTP/1.1', `Host: ${host}`, 'Connection: close', ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`)];
  socket.write(`${lines.join('\r\n')}\r\n\r\n${body}`);
  const answerStarted = new Promise<void>((resolve) => socket.once('data', () => (socket.pause(), resolve())));
  return { socket, answerStarted };
}

/** A POST with the Host and Origin headers the test chooses (fetch will not send another Host). */
function postWith(url: string, headers: Record<string, string>, body: string): Promise<{ status: number; text: string }> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    const sent = httpRequest({ host: '127.0.0.1', port, path: '/rpc', method: 'POST', headers: { 'content-type': 'application/json', ...headers } }, (response) => {
      let text = '';
      response.on('data', (chunk: Buffer) => (text += chunk.toString()));
      response.on('end', () => resolve({ status: response.statusCode!, text }));
    });
    sent.on('error', reject);
    sent.end(body);
  });
}

function rssMiB(pid: number): number {
  return Number(readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmRSS:\s+(\d+)/)![1]) / 1024;
}

describe('attack: many large unsigned bodies', () => {
  it('are refused (401) without ever being held: the server does not grow with them', async () => {
    const started = spawnNode(['bin/toolgate.js', 'exec-server', '--root', sandbox.root, '--port', '0', '--tenant', TENANT, '--unsandboxed'], { env: { TOOLGATE_EXEC_SECRET: SECRET } });
    try {
      const [, url] = await started.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+)/);
      await started.waitFor(/^commands: /m);
      const pid = started.child.pid!;
      const before = rssMiB(pid);
      // As attack/bigbody.mjs: 12 connections, 63 MiB each, no signature; 756 MiB if buffered.
      const size = 63 * MIB;
      const chunk = Buffer.alloc(MIB, 'a');
      const sockets = Array.from({ length: 12 }, () => {
        const socket = connect(Number(new URL(url).port), '127.0.0.1');
        socket.on('error', () => {});
        socket.write(`POST /rpc HTTP/1.1\r\nHost: ${new URL(url).host}\r\nConnection: close\r\nContent-Length: ${size}\r\n\r\n`);
        return socket;
      });
      let peak = before;
      for (let sent = 0; sent < 63; sent++) {
        await Promise.all(sockets.map((socket) => new Promise((resolve) => socket.write(chunk, resolve))));
        peak = Math.max(peak, rssMiB(pid));
      }
      const answers = await Promise.all(sockets.map((socket) => new Promise<string>((resolve) => {
        let text = '';
        socket.on('data', (data: Buffer) => (text += data.toString()));
        socket.on('end', () => resolve(text));
        socket.on('close', () => resolve(text));
      })));
      for (const answer of answers) expect(answer).toMatch(/^HTTP\/1\.1 401[\s\S]*missing signature headers/);
      expect(peak - before).toBeLessThan(200);
    } finally {
      await started.stop();
    }
  }, 60_000);
});

describe('request bodies held at once are capped across requests', () => {
  let server: ExecServer;
  beforeEach(async () => {
    server = await startExecServer({ root: sandbox.root, secret: SECRET, tenants: [TENANT], port: 0, sandbox: unsandboxed(), maxBodyBytes: 2 * MIB, maxBufferedBodyBytes: 3 * MIB });
  });
  afterEach(() => server.close());

  /** Waits until the server holds more than `bytes` of request bodies (/healthz says how much). */
  async function untilHeld(bytes: number): Promise<void> {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const health = (await (await fetch(`${server.url}/healthz`)).json()) as { requests: { body_bytes_held: number } };
      if (health.requests.body_bytes_held > bytes) return;
      if (Date.now() > deadline) throw new Error(`the server never held more than ${bytes} bytes`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  it('refuses a body that does not fit beside those being received (503, nothing run), and the gateway says retry', async () => {
    const content = new Uint8Array(MIB + 100_000).fill(0x61);
    const held = await Promise.all(['held-1.bin', 'held-2.bin'].map(async (path) => {
      const body = writeBody(path, content);
      return slowRequest(server.url, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), ...(await signBody(SECRET, body)) }, body, 1000);
    }));
    await untilHeld(2 * MIB);
    // 2 × ~1.4 MiB announced: the third (chunked, no Content-Length) runs out of room as it arrives.
    const third = writeBody('third.bin', content);
    const chunked = slowRequest(server.url, { 'content-type': 'application/json', 'transfer-encoding': 'chunked', ...(await signBody(SECRET, third)) }, `${Buffer.byteLength(third).toString(16)}\r\n${third}\r\n0\r\n\r\n`, 0);
    chunked.sendRest();
    const refused = await chunked.answer;
    expect(refused.status).toBe(503);
    expect(refused.text).toContain('"code":"server_busy"');
    const remote = new RemoteExecutionEnvironment({ url: server.url, secret: SECRET, tenant: TENANT });
    const error = await toolError(remote.writeFile('fourth.bin', content));
    expect(error.code).toBe('unavailable');
    expect(error.message).toContain('is busy (HTTP 503');
    expect(error.message).toContain('nothing ran');
    for (const request of held) request.sendRest();
    for (const request of held) expect((await request.answer).status).toBe(200);
    expect(existsSync(join(sandbox.root, 'held-1.bin')) && existsSync(join(sandbox.root, 'held-2.bin'))).toBe(true);
    expect(existsSync(join(sandbox.root, 'third.bin')) || existsSync(join(sandbox.root, 'fourth.bin'))).toBe(false);
    // Their room is given back.
    await remote.writeFile('after.bin', content);
    expect(existsSync(join(sandbox.root, 'after.bin'))).toBe(true);
  });

  it('holds nothing of a body whose signature headers are missing or stale: a signed body still fits beside them', async () => {
    const content = new Uint8Array(MIB + 100_000).fill(0x61);
    const body = writeBody('unsigned.bin', content);
    const declared = { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) };
    const stale = await signBody(SECRET, body, Math.floor(Date.now() / 1000) - 301);
    // Three bodies of ~1.4 MiB announced, 4.2 MiB in all: more than the 3 MiB held at once, were they held.
    const unsigned = [{}, stale, stale].map((headers) => slowRequest(server.url, { ...declared, ...headers }, body, 1000));
    // Two requests later on another connection: the server has read the three requests' headers.
    await fetch(`${server.url}/healthz`);
    const health = (await (await fetch(`${server.url}/healthz`)).json()) as { requests: { body_bytes_held: number } };
    expect(health.requests.body_bytes_held).toBe(0);
    const remote = new RemoteExecutionEnvironment({ url: server.url, secret: SECRET, tenant: TENANT });
    await remote.writeFile('signed.bin', content);
    expect(existsSync(join(sandbox.root, 'signed.bin'))).toBe(true);
    for (const request of unsigned) request.sendRest();
    const answers = await Promise.all(unsigned.map((request) => request.answer));
    expect(answers.map((answer) => answer.status)).toEqual([401, 401, 401]);
    expect(answers[0].text).toContain('missing signature headers');
    expect(answers[1].text).toContain('stale timestamp');
    expect(existsSync(join(sandbox.root, 'unsigned.bin'))).toBe(false);
  });

  it('says so on /healthz', async () => {
    const health = (await (await fetch(`${server.url}/healthz`)).json()) as { requests: unknown };
    expect(health.requests).toEqual({ max_body_bytes: 2 * MIB, body_bytes_at_once: 3 * MIB, body_bytes_held: 0, file_operations_at_once: 4 });
  });
});

describe('attack: a web page talking to a loopback exec-server (DNS rebinding, or a browser on the host)', () => {
  let server: ExecServer;
  beforeEach(async () => {
    server = await startExecServer({ root: sandbox.root, secret: SECRET, tenants: [TENANT], port: 0, sandbox: unsandboxed(), allowedHosts: ['exec.internal'] });
  });
  afterEach(() => server.close());

  it('refuses a request with an Origin, or a Host it does not answer to, before anything else (403)', async () => {
    const port = new URL(server.url).port;
    const refusals: Array<Record<string, string>> = [
      { host: `attacker.example:${port}` },
      { host: `127.0.0.1:${port}`, origin: 'http://attacker.example' },
      { host: `127.0.0.1:${port}`, origin: 'null' },
      { host: `localhost:${Number(port) + 1}` },
    ];
    for (const [i, headers] of refusals.entries()) {
      const body = writeBody(`pwned-${i}.txt`, utf8('x'));
      const { status, text } = await postWith(server.url, { ...headers, ...(await signBody(SECRET, body)) }, body);
      expect(status, JSON.stringify(headers)).toBe(403);
      expect(text).toContain('"code":"forbidden_origin"');
      expect(existsSync(join(sandbox.root, `pwned-${i}.txt`))).toBe(false);
    }
  });

  it('answers its own names and the operator\'s --allowed-host; /healthz answers any Host', async () => {
    const port = new URL(server.url).port;
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `exec.internal:${port}`]) {
      const body = writeBody('fine.txt', utf8(host));
      expect((await postWith(server.url, { host, ...(await signBody(SECRET, body)) }, body)).status, host).toBe(200);
    }
    const health = await new Promise<number>((resolve) => httpRequest({ host: '127.0.0.1', port, path: '/healthz', headers: { host: 'probe.example' } }, (r) => resolve(r.statusCode!)).end());
    expect(health).toBe(200);
  });

  it('refuses a request with missing or stale signature headers before reading its body', async () => {
    const body = writeBody('stale.txt', utf8('x'));
    const stale = await postWith(server.url, { host: new URL(server.url).host, ...(await signBody(SECRET, body, Math.floor(Date.now() / 1000) - 301)) }, body);
    expect(stale.status).toBe(401);
    expect(stale.text).toContain('stale timestamp');
    const malformed = await postWith(server.url, { host: new URL(server.url).host, 'x-toolgate-timestamp': String(Math.floor(Date.now() / 1000)), 'x-toolgate-signature': 'v1=short' }, body);
    expect(malformed.status).toBe(401);
    expect(malformed.text).toContain('malformed signature');
    expect(existsSync(join(sandbox.root, 'stale.txt'))).toBe(false);
  });
});

describe('which Host names an exec-server answers to', () => {
  it('its loopback names on loopback, its address elsewhere, every interface on a wildcard, plus --allowed-host', () => {
    expect(hostsServed('127.0.0.1', 8788)).toEqual(['127.0.0.1:8788', 'localhost:8788', '[::1]:8788']);
    expect(hostsServed('10.1.2.3', 8788, ['exec.internal'])).toEqual(['10.1.2.3:8788', 'exec.internal']);
    expect(hostsServed('fd00::5', 80)).toEqual(['[fd00::5]:80', '[fd00::5]']);
    const wildcard = hostsServed('0.0.0.0', 8788);
    expect(wildcard).toContain('localhost:8788');
    expect(wildcard).not.toContain('attacker.example:8788');
  });

  it('refuses a bad --allowed-host at start', async () => {
    await expect(startExecServer({ root: sandbox.root, secret: SECRET, tenants: [TENANT], port: 0, sandbox: unsandboxed(), allowedHosts: ['http://x/'] })).rejects.toThrow(/--allowed-host "http:\/\/x\/" is not a host name/);
  });
});

describe('file operations worked on at once are capped', () => {
  it('queues the next one briefly, then refuses it (unavailable: busy, retry) without starting it', async () => {
    let releaseSlow!: () => void;
    const slowDone = new Promise<void>((resolve) => (releaseSlow = resolve));
    let slowStarted!: () => void;
    const slowUnderWay = new Promise<void>((resolve) => (slowStarted = resolve));
    let writes = 0;
    /** The real environment, with a readFile that stays under way until the test lets it end. */
    class HeldRead extends LocalExecutionEnvironment {
      override async readFile(path: string): Promise<Uint8Array> {
        if (path !== 'slow.txt') return super.readFile(path);
        slowStarted();
        await slowDone;
        return utf8('slow');
      }
      override async writeFile(path: string, content: Uint8Array): Promise<void> {
        writes++;
        return super.writeFile(path, content);
      }
    }
    const environment = new HeldRead(sandbox.root, { sandbox: unsandboxed() });
    const server = await startExecServer({ root: sandbox.root, secret: SECRET, tenants: [TENANT], port: 0, sandbox: unsandboxed(), environment, maxFileOperations: 1, fileOperationWaitMs: 1000 });
    try {
      const remote = new RemoteExecutionEnvironment({ url: server.url, secret: SECRET, tenant: TENANT });
      const slow = remote.readFile('slow.txt');
      // Under load the write could otherwise reach the server before the read holds the one slot.
      await slowUnderWay;
      const refused = await execError(remote.writeFile('late.txt', utf8('late')));
      expect(refused.code).toBe('unavailable');
      expect(refused.message).toContain('busy: 1 file operations were under way all the 1000 ms this writeFile waited, so it was not started; retry it shortly');
      expect(writes).toBe(0);
      const waiting = remote.writeFile('queued.txt', utf8('queued'));
      await new Promise((resolve) => setTimeout(resolve, 200));
      releaseSlow();
      expect(await slow).toEqual(utf8('slow'));
      await waiting;
      expect(existsSync(join(sandbox.root, 'queued.txt'))).toBe(true);
      expect(existsSync(join(sandbox.root, 'late.txt'))).toBe(false);
    } finally {
      await server.close();
    }
  });
});

describe('attack: parallel reads whose answers wait to be sent', () => {
  const readBody = (path: string) => JSON.stringify({ method: 'readFile', params: { path }, tenant: TENANT, nonce: newNonce() });

  it('a readFile answer holds its file operation slot until it is handed to the connection; a client that leaves gives it back', async () => {
    await writeFile(join(sandbox.root, 'big.bin'), new Uint8Array(24 * MIB).fill(0x61));
    const server = await startExecServer({ root: sandbox.root, secret: SECRET, tenants: [TENANT], port: 0, sandbox: unsandboxed(), maxFileOperations: 1, fileOperationWaitMs: 1000 });
    try {
      const remote = new RemoteExecutionEnvironment({ url: server.url, secret: SECRET, tenant: TENANT });
      const reader = await unreadAnswer(server.url, readBody('big.bin'));
      await reader.answerStarted;
      // 32 MiB of base64 the client does not take: the answer is still held by the server, and so is the only slot.
      const refused = await execError(remote.fileExists('big.bin'));
      expect(refused.code).toBe('unavailable');
      expect(refused.message).toContain('busy: 1 file operations were under way');
      reader.socket.destroy();
      expect(await remote.fileExists('big.bin')).toBe(true);
    } finally {
      await server.close();
    }
  });

  it('a client that leaves while its file operation runs gives the slot back when the operation ends', async () => {
    let releaseSlow!: () => void;
    const slowDone = new Promise<void>((resolve) => (releaseSlow = resolve));
    let reading = false;
    class HeldRead extends LocalExecutionEnvironment {
      override async readFile(path: string): Promise<Uint8Array> {
        if (path !== 'slow.txt') return super.readFile(path);
        reading = true;
        await slowDone;
        return utf8('slow');
      }
    }
    await writeFile(join(sandbox.root, 'after.txt'), 'after');
    const environment = new HeldRead(sandbox.root, { sandbox: unsandboxed() });
    const server = await startExecServer({ root: sandbox.root, secret: SECRET, tenants: [TENANT], port: 0, sandbox: unsandboxed(), environment, maxFileOperations: 1, fileOperationWaitMs: 1000 });
    try {
      const reader = await unreadAnswer(server.url, readBody('slow.txt'));
      expect(await waitUntil(() => reading, 10_000)).toBe(true);
      reader.socket.destroy();
      // The server has seen the client leave (a round trip on another connection after it) before the read ends.
      await fetch(`${server.url}/healthz`);
      await new Promise((resolve) => setTimeout(resolve, 100));
      releaseSlow();
      const remote = new RemoteExecutionEnvironment({ url: server.url, secret: SECRET, tenant: TENANT });
      expect(await remote.readFile('after.txt')).toEqual(utf8('after'));
    } finally {
      await server.close();
    }
  });
});
