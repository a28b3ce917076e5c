import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signBody } from '../../lib/crypto/signed-request.ts';
import { LocalExecutionEnvironment } from '../../lib/exec/local/local-environment.ts';
import { RemoteExecutionEnvironment } from '../../lib/exec/client/remote.ts';
import { newNonce } from '../../lib/exec/rpc-protocol.ts';
import { startExecServer, type ExecServer } from '../../lib/exec/server/exec-server.ts';
import { bytes, execError, makeSandbox, toolError, utf8, type Sandbox } from './helpers.ts';

const SECRET = 'test-secret-0123456789abcdef0123456789abcdef';
const MAX_BODY = 256 * 1024;
const TENANT = 'acme';

let sandbox: Sandbox;
let server: ExecServer;
let remote: RemoteExecutionEnvironment;
const logged: { event: string; fields: Record<string, unknown> }[] = [];

beforeAll(async () => {
  sandbox = await makeSandbox();
  server = await startExecServer({ root: sandbox.root, secret: SECRET, tenants: [TENANT], port: 0, maxBodyBytes: MAX_BODY, log: (event, fields) => logged.push({ event, fields }) });
  remote = new RemoteExecutionEnvironment({ url: server.url, secret: SECRET, tenant: TENANT });
});
afterAll(async () => {
  await server.close();
  await sandbox.cleanup();
});

/** POSTs a body with the given headers, bypassing the client. */
async function post(body: string, headers: Record<string, string>): Promise<{ status: number; json: unknown }> {
  const response = await fetch(`${server.url}/rpc`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
  return { status: response.status, json: await response.json() };
}

/** A request body as the client builds it: for TENANT, with a fresh nonce. */
const rpcBody = (request: Record<string, unknown>) => JSON.stringify({ tenant: TENANT, nonce: newNonce(), ...request });
const writeCall = (path: string) => rpcBody({ method: 'writeFile', params: { path, content_base64: 'cHduZWQ=' } });

describe('RemoteExecutionEnvironment against a real exec-server', () => {
  it('round-trips every method', async () => {
    const content = bytes(0x61, 0x0d, 0x0a, 0x62, 0x0d, 0xff, 0x00, 0xfe);
    await remote.writeFile('dir/data.bin', content);
    expect(await remote.readFile('dir/data.bin')).toEqual(content);
    expect(await remote.fileExists('dir/data.bin')).toBe(true);
    expect(await remote.stat('dir/data.bin')).toMatchObject({ type: 'file', size: 8 });
    expect(await remote.stat('nothing')).toBeNull();
    await remote.moveFile('dir/data.bin', 'moved/data.bin');
    expect(await remote.listDirectory('.', 2)).toEqual([
      { path: 'dir', type: 'directory', size: expect.any(Number) },
      { path: 'moved', type: 'directory', size: expect.any(Number) },
      { path: 'moved/data.bin', type: 'file', size: 8 },
    ]);
    await remote.writeFile('src/code.ts', utf8('const Needle = 1;\n'));
    expect(await remote.grep('needle', 'src', { case_insensitive: true, max_results: 5 })).toEqual([{ path: 'src/code.ts', line: 1, text: 'const Needle = 1;' }]);
    expect(await remote.glob('**/*.ts', '.')).toEqual([{ path: 'src/code.ts', mtime_ms: expect.any(Number) }]);
    const result = await remote.execCommand('cat moved/data.bin | wc -c; echo "$WHO" >&2', { timeout_ms: 5_000, cwd: '.', env: { WHO: 'remote' } });
    expect(result).toMatchObject({ exit_code: 0, stdout: '8\n', stderr: 'remote\n', timed_out: false, output_capped: false });
    await remote.deleteFile('moved/data.bin');
    expect(await remote.fileExists('moved/data.bin')).toBe(false);
    expect(await remote.workingDirectory()).toMatch(/root$/);
    expect(await remote.platform()).toBe(process.platform);
  });

  it('brings environment errors back as ExecEnvironmentError with the same code and message', async () => {
    const missing = await execError(remote.readFile('no/such.txt'));
    expect(missing.code).toBe('not_found');
    expect(missing.message).toContain('"no/such.txt"');
    expect((await execError(remote.writeFile('../escape.txt', utf8('x')))).code).toBe('outside_root');
    expect((await execError(remote.grep('(', '.'))).code).toBe('invalid_request');
    expect(existsSync(join(sandbox.base, 'escape.txt'))).toBe(false);
  });

  it('reports a command timeout as a result, not a transport failure', async () => {
    const result = await remote.execCommand('sleep 10', { timeout_ms: 200 });
    expect(result).toMatchObject({ timed_out: true, exit_code: null });
  });

  it('maps a request the server refuses as malformed (HTTP 400) to invalid_request', async () => {
    const error = await execError(remote.listDirectory('.', 'deep' as unknown as number));
    expect(error.code).toBe('invalid_request');
    expect(error.message).toContain('depth must be a number');
  });
});

describe('the exec-server refuses unsigned requests before doing anything', () => {
  it('answers 401 to a forged signature and writes nothing', async () => {
    const body = writeCall('forged.txt');
    const headers = await signBody('not-the-secret', body);
    const { status, json } = await post(body, headers);
    expect(status).toBe(401);
    expect(json).toMatchObject({ error: { code: 'unauthorized' } });
    expect(existsSync(join(sandbox.root, 'forged.txt'))).toBe(false);
  });

  it('answers 401 to missing signature headers and writes nothing', async () => {
    const { status, json } = await post(writeCall('unsigned.txt'), {});
    expect(status).toBe(401);
    expect(JSON.stringify(json)).toContain('missing signature headers');
    expect(existsSync(join(sandbox.root, 'unsigned.txt'))).toBe(false);
  });

  it('answers 401 to a stale timestamp (older than 300 s) and writes nothing', async () => {
    const body = writeCall('stale.txt');
    const headers = await signBody(SECRET, body, Math.floor(Date.now() / 1000) - 301);
    const { status, json } = await post(body, headers);
    expect(status).toBe(401);
    expect(JSON.stringify(json)).toContain('stale timestamp');
    expect(existsSync(join(sandbox.root, 'stale.txt'))).toBe(false);
  });

  it('answers 401 when a correctly signed body is altered', async () => {
    const headers = await signBody(SECRET, writeCall('original.txt'));
    const { status } = await post(writeCall('altered.txt'), headers);
    expect(status).toBe(401);
    expect(existsSync(join(sandbox.root, 'altered.txt'))).toBe(false);
  });

  it('makes a client with the wrong secret unavailable, naming the cause', async () => {
    const wrong = new RemoteExecutionEnvironment({ url: server.url, secret: 'wrong-secret', tenant: TENANT });
    const error = await toolError(wrong.writeFile('wrong.txt', utf8('x')));
    expect(error.code).toBe('unavailable');
    expect(error.message).toContain(server.url);
    expect(error.message).toContain('TOOLGATE_EXEC_SECRET');
    expect(existsSync(join(sandbox.root, 'wrong.txt'))).toBe(false);
  });

  it('logs refusals without params', () => {
    const refusals = logged.filter((entry) => entry.event === 'exec.rpc.refused');
    expect(refusals.length).toBeGreaterThan(0);
    expect(JSON.stringify(logged)).not.toContain('cHduZWQ=');
  });
});

describe('the exec-server refuses malformed and oversized requests', () => {
  it('answers 413 to a body over the limit, and the client says what to do', async () => {
    const body = rpcBody({ method: 'writeFile', params: { path: 'big.bin', content_base64: 'A'.repeat(MAX_BODY) } });
    const { status, json } = await post(body, await signBody(SECRET, body));
    expect(status).toBe(413);
    expect(json).toMatchObject({ error: { code: 'payload_too_large' } });
    const error = await execError(remote.writeFile('big.bin', new Uint8Array(MAX_BODY)));
    expect(error.code).toBe('invalid_request');
    expect(error.message).toContain(String(MAX_BODY));
    expect(existsSync(join(sandbox.root, 'big.bin'))).toBe(false);
  });

  it('still answers 413 (not a reset) to a body far over the limit', async () => {
    const body = 'x'.repeat(MAX_BODY * 8);
    const { status } = await post(body, await signBody(SECRET, body));
    expect(status).toBe(413);
  });

  it.each([
    ['an unknown method', rpcBody({ method: 'rmRf', params: {} }), 'unknown method'],
    ['a missing param', rpcBody({ method: 'readFile', params: {} }), 'path must be a string'],
    ['bad base64', rpcBody({ method: 'writeFile', params: { path: 'x', content_base64: '***' } }), 'base64'],
    ['a non-object body', JSON.stringify([1, 2]), 'JSON object'],
    ['a body without a tenant', JSON.stringify({ method: 'platform', params: {}, nonce: newNonce() }), 'tenant must be a tenant id'],
    ['a body without a nonce', JSON.stringify({ method: 'platform', params: {}, tenant: TENANT }), 'nonce must be'],
    ['a nonce too short to be random', rpcBody({ method: 'platform', params: {}, nonce: 'abc' }), 'nonce must be'],
  ])('answers 400 invalid_request to %s', async (_, body, expected) => {
    const { status, json } = await post(body, await signBody(SECRET, body));
    expect(status).toBe(400);
    expect(json).toMatchObject({ error: { code: 'invalid_request' } });
    expect(JSON.stringify(json)).toContain(expected);
  });

  it('answers 400 to a signed body that is not JSON', async () => {
    const body = '{not json';
    const { status, json } = await post(body, await signBody(SECRET, body));
    expect(status).toBe(400);
    expect(json).toMatchObject({ error: { code: 'invalid_request' } });
  });

  it('answers 404 elsewhere and 405 to other HTTP methods', async () => {
    expect((await fetch(`${server.url}/other`, { method: 'POST' })).status).toBe(404);
    expect((await fetch(`${server.url}/rpc`)).status).toBe(405);
  });
});

describe('an unreachable or wrong server is unavailable, never a crash', () => {
  let garbage: Server;
  let garbageUrl: string;
  let hanging: Server;
  let hangingUrl: string;

  beforeAll(async () => {
    garbage = createServer((_, response) => {
      response.writeHead(200, { 'content-type': 'text/html' });
      response.end('<html><body>Welcome to nginx!</body></html>');
    });
    hanging = createServer(() => {});
    garbageUrl = await listenOnFreePort(garbage);
    hangingUrl = await listenOnFreePort(hanging);
  });
  afterAll(async () => {
    hanging.closeAllConnections();
    await Promise.all([closed(garbage), closed(hanging)]);
  });

  it('a server that is down', async () => {
    const probe = createServer();
    const url = await listenOnFreePort(probe);
    await closed(probe);
    const error = await toolError(new RemoteExecutionEnvironment({ url, secret: SECRET, tenant: TENANT }).readFile('x'));
    expect(error.code).toBe('unavailable');
    expect(error.message).toMatch(new RegExp(`^execution environment at ${url} is unavailable: .*ECONNREFUSED`));
  });

  it('a server that answers HTML', async () => {
    const error = await toolError(new RemoteExecutionEnvironment({ url: garbageUrl, secret: SECRET, tenant: TENANT }).stat('x'));
    expect(error.code).toBe('unavailable');
    expect(error.message).toContain('not JSON');
    expect(error.message).toContain(garbageUrl);
  });

  it('a server that answers JSON of another shape', async () => {
    const fake: typeof fetch = async () => Response.json({ hello: 'world' });
    const error = await toolError(new RemoteExecutionEnvironment({ url: 'http://127.0.0.1:1', secret: SECRET, tenant: TENANT, fetch: fake }).platform());
    expect(error.message).toContain('unexpected shape');
  });

  it('a 404 with an error body is not mistaken for "file not found"', async () => {
    const fake: typeof fetch = async () => Response.json({ error: { code: 'not_found', message: 'no route' } }, { status: 404 });
    const error = await toolError(new RemoteExecutionEnvironment({ url: 'http://127.0.0.1:1', secret: SECRET, tenant: TENANT, fetch: fake }).readFile('x'));
    expect(error.code).toBe('unavailable');
  });

  it('a server that never answers, after the client timeout', async () => {
    const error = await toolError(new RemoteExecutionEnvironment({ url: hangingUrl, secret: SECRET, tenant: TENANT, timeoutMs: 200 }).fileExists('x'));
    expect(error.message).toContain('no answer within 200 ms');
  });

  it('a server that fails inside (HTTP 500), keeping its message', async () => {
    const broken = new LocalExecutionEnvironment(sandbox.root);
    broken.platform = async () => {
      throw new Error('disk on fire');
    };
    const failures: string[] = [];
    const brokenServer = await startExecServer({ root: sandbox.root, secret: SECRET, tenants: [TENANT], port: 0, environment: broken, log: (event) => failures.push(event) });
    try {
      const error = await toolError(new RemoteExecutionEnvironment({ url: brokenServer.url, secret: SECRET, tenant: TENANT }).platform());
      expect(error.message).toContain('HTTP 500: the exec-server failed while answering');
      expect(error.message).not.toContain('disk on fire');
      expect(failures).toContain('exec.rpc.failed');
    } finally {
      await brokenServer.close();
    }
  });

  it('refuses a URL that is not http(s) when constructed', () => {
    expect(() => new RemoteExecutionEnvironment({ url: 'localhost:8788', secret: SECRET, tenant: TENANT })).toThrow(/not an http\(s\) URL/);
  });
});

describe('the transport timeout of execCommand covers the command timeout and the kill grace', () => {
  it('waits longer than the client timeout when the command may run longer', async () => {
    const slow = new RemoteExecutionEnvironment({ url: server.url, secret: SECRET, tenant: TENANT, timeoutMs: 300 });
    const result = await slow.execCommand('sleep 1; echo finished', { timeout_ms: 3_000 });
    expect(result.stdout).toBe('finished\n');
  });
});

describe('file contents written over RPC match the disk byte for byte', () => {
  it('keeps CRLF and invalid UTF-8 exactly', async () => {
    const content = new Uint8Array(70_000).map((_, i) => (i * 7) % 256);
    await remote.writeFile('exact.bin', content);
    expect(new Uint8Array(await readFile(join(sandbox.root, 'exact.bin')))).toEqual(content);
    await writeFile(join(sandbox.root, 'disk.txt'), Buffer.from([0x0d, 0x0a, 0x0d, 0xc3]));
    expect(await remote.readFile('disk.txt')).toEqual(bytes(0x0d, 0x0a, 0x0d, 0xc3));
  });
});

function listenOnFreePort(server: Server): Promise<string> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)));
}

function closed(server: Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}
