import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { signBody } from '../../lib/crypto/signed-request.ts';
import { NonceRegistry } from '../../lib/exec/server/nonce-registry.ts';
import { RemoteExecutionEnvironment } from '../../lib/exec/client/remote.ts';
import { startExecServer, type ExecServer } from '../../lib/exec/server/exec-server.ts';
import { makeSandbox, toolError, type Sandbox } from './helpers.ts';

const SECRET = 'attack-secret-0123456789abcdef0123456789abcdef';
/** Appends one line per run: the number of lines is the number of times the command ran. */
const COUNTED_COMMAND = 'echo ran >> counter.txt';

interface Captured {
  url: string;
  headers: Record<string, string>;
  body: string;
}

let sandbox: Sandbox;
let server: ExecServer;

beforeEach(async () => {
  sandbox = await makeSandbox();
  server = await startExecServer({ root: sandbox.root, secret: SECRET, tenants: ['acme'], port: 0 });
});
afterEach(async () => {
  await server.close();
  await sandbox.cleanup();
});

function runs(): number {
  const counter = join(sandbox.root, 'counter.txt');
  return existsSync(counter) ? readFileSync(counter, 'utf8').split('\n').filter(Boolean).length : 0;
}

/** A client whose traffic a wiretap records, as an attacker on the network would. */
function tappedClient(url: string, tenant: string, captured: Captured[]): RemoteExecutionEnvironment {
  const tap: typeof fetch = async (input, init) => {
    captured.push({ url: String(input), headers: { ...(init?.headers as Record<string, string>) }, body: String(init?.body) });
    return fetch(input, init);
  };
  return new RemoteExecutionEnvironment({ url, secret: SECRET, tenant, fetch: tap });
}

async function send(request: Captured, url = request.url): Promise<{ status: number; code: unknown }> {
  const response = await fetch(url, { method: 'POST', headers: request.headers, body: request.body });
  const json = (await response.json()) as { error?: { code?: unknown } };
  return { status: response.status, code: json.error?.code };
}

describe('attack: replaying a captured signed request', () => {
  it('runs a captured execCommand once: 5 sends, 1 run, 4 refusals', async () => {
    const captured: Captured[] = [];
    const result = await tappedClient(server.url, 'acme', captured).execCommand(COUNTED_COMMAND);
    expect(result.exit_code).toBe(0);
    expect(captured).toHaveLength(1);
    const replays = [];
    for (let i = 0; i < 4; i++) replays.push(await send(captured[0]));
    expect(replays).toEqual(Array.from({ length: 4 }, () => ({ status: 401, code: 'replayed_request' })));
    expect(runs()).toBe(1);
  });

  it('refuses a replay in the last second of the window while the server\'s clock turns over (reviewer\'s boundary race)', async () => {
    const captured: Captured[] = [];
    await tappedClient(server.url, 'acme', captured).execCommand(COUNTED_COMMAND);
    const signedAt = Number(captured[0].headers['x-toolgate-timestamp']);
    // The replay arrives 300.9 s after signing, and the server's clock passes 301 s while it checks
    // the body: its first two readings of the clock (the headers before the body is read, then the
    // body's checks) say 300.9 s, any later one 301.1 s. (Only the server's own readings count;
    // the HTTP client reads the clock too.)
    const real = Date.now.bind(Date);
    let serverReadings = 0;
    const clock = vi.spyOn(Date, 'now').mockImplementation(() => {
      if (!/lib\/(exec\/server|crypto\/signed-request)\.ts/.test(new Error().stack ?? '')) return real();
      return serverReadings++ <= 1 ? (signedAt + 300) * 1000 + 900 : (signedAt + 301) * 1000 + 100;
    });
    try {
      expect(await send(captured[0])).toEqual({ status: 401, code: 'replayed_request' });
    } finally {
      clock.mockRestore();
    }
    expect(runs()).toBe(1);
  });

  it('refuses replays sent all at once, still running the command once', async () => {
    const captured: Captured[] = [];
    await tappedClient(server.url, 'acme', captured).execCommand(COUNTED_COMMAND);
    const replays = await Promise.all(Array.from({ length: 8 }, () => send(captured[0])));
    expect(replays.every((replay) => replay.status === 401 && replay.code === 'replayed_request')).toBe(true);
    expect(runs()).toBe(1);
  });

  it('cannot get around the nonce by changing it: the nonce is signed', async () => {
    const captured: Captured[] = [];
    await tappedClient(server.url, 'acme', captured).execCommand(COUNTED_COMMAND);
    const body = JSON.parse(captured[0].body) as Record<string, unknown>;
    const renonced = { ...captured[0], body: JSON.stringify({ ...body, nonce: 'f'.repeat(32) }) };
    expect(await send(renonced)).toEqual({ status: 401, code: 'unauthorized' });
    expect(runs()).toBe(1);
  });

  it('refuses a request captured before a restart: it was signed before the new server started', async () => {
    const captured: Captured[] = [];
    await tappedClient(server.url, 'acme', captured).execCommand(COUNTED_COMMAND);
    const signedAt = Number(captured[0].headers['x-toolgate-timestamp']);
    await server.close();
    // The server refuses what was signed before the second it started; start in a later second.
    while (Math.floor(Date.now() / 1000) <= signedAt) await new Promise((resolve) => setTimeout(resolve, 50));
    server = await startExecServer({ root: sandbox.root, secret: SECRET, tenants: ['acme'], port: 0 });
    expect(await send(captured[0], `${server.url}/rpc`)).toEqual({ status: 401, code: 'signed_before_start' });
    expect(runs()).toBe(1);
  });

  it('refuses a request signed before the server started even when never sent before', async () => {
    const body = JSON.stringify({ method: 'execCommand', params: { command: COUNTED_COMMAND }, tenant: 'acme', nonce: 'a'.repeat(32) });
    const headers = { 'content-type': 'application/json', ...(await signBody(SECRET, body, Math.floor(Date.now() / 1000) - 10)) };
    expect(await send({ url: `${server.url}/rpc`, headers, body })).toEqual({ status: 401, code: 'signed_before_start' });
    expect(runs()).toBe(0);
  });

  it('refuses a request timestamped well ahead of its clock, which could otherwise be replayed after a restart', async () => {
    const body = JSON.stringify({ method: 'execCommand', params: { command: COUNTED_COMMAND }, tenant: 'acme', nonce: 'b'.repeat(32) });
    const headers = { 'content-type': 'application/json', ...(await signBody(SECRET, body, Math.floor(Date.now() / 1000) + 120)) };
    expect(await send({ url: `${server.url}/rpc`, headers, body })).toEqual({ status: 401, code: 'signed_ahead_of_server' });
    expect(runs()).toBe(0);
  });

  it('tells the gateway what happened, without running anything twice', async () => {
    const replayer: typeof fetch = async (input, init) => {
      await fetch(input, init);
      return fetch(input, init);
    };
    const client = new RemoteExecutionEnvironment({ url: server.url, secret: SECRET, tenant: 'acme', fetch: replayer });
    const error = await toolError(client.execCommand(COUNTED_COMMAND));
    expect(error.code).toBe('unavailable');
    expect(error.message).toContain('refused the request as a replay');
    expect(runs()).toBe(1);
  });
});

describe('attack: one tenant using another tenant\'s exec-server', () => {
  it('refuses a request signed for another tenant, with the same secret, and runs nothing', async () => {
    const error = await toolError(new RemoteExecutionEnvironment({ url: server.url, secret: SECRET, tenant: 'globex' }).execCommand(COUNTED_COMMAND));
    expect(error.code).toBe('unavailable');
    expect(error.message).toContain('does not serve tenant "globex"');
    expect(error.message).toContain('--tenant globex');
    expect(error.message).not.toContain('acme');
    expect(runs()).toBe(0);
  });

  it('cannot relabel a captured request as its own tenant: the tenant is signed', async () => {
    const captured: Captured[] = [];
    await toolError(tappedClient(server.url, 'globex', captured).execCommand(COUNTED_COMMAND));
    const body = JSON.parse(captured[0].body) as Record<string, unknown>;
    expect(body.tenant).toBe('globex');
    const relabelled = { ...captured[0], body: JSON.stringify({ ...body, tenant: 'acme' }) };
    expect(await send(relabelled)).toEqual({ status: 401, code: 'unauthorized' });
    expect(runs()).toBe(0);
  });

  it('refuses to start without a tenant, or with a name that is not a tenant id', async () => {
    await expect(startExecServer({ root: sandbox.root, secret: SECRET, tenants: [], port: 0 })).rejects.toThrow(/--tenant NAME/);
    await expect(startExecServer({ root: sandbox.root, secret: SECRET, tenants: ['ACME!'], port: 0 })).rejects.toThrow(/is not a tenant id/);
  });
});

describe('remembered nonces stay bounded', () => {
  it('forgets a nonce once its request could no longer pass the signature check', () => {
    const registry = new NonceRegistry(300, 10);
    expect(registry.claim('n1', 1_000, 1_000)).toBe('fresh');
    expect(registry.claim('n1', 1_000, 1_300)).toBe('replayed');
    // One second past its expiry it is still remembered: a caller whose clock readings straddle
    // the last second of the window (the reviewer's replay at 300.6 s) finds it.
    expect(registry.claim('n1', 1_000, 1_301)).toBe('replayed');
    expect(registry.claim('n2', 1_300, 1_302)).toBe('fresh');
    expect(registry.size).toBe(1);
    expect(registry.claim('n1', 1_000, 1_302)).toBe('fresh');
  });

  it('refuses new requests when full rather than forgetting early (503, nothing runs)', async () => {
    await server.close();
    server = await startExecServer({ root: sandbox.root, secret: SECRET, tenants: ['acme'], port: 0, maxNonces: 2 });
    const client = new RemoteExecutionEnvironment({ url: server.url, secret: SECRET, tenant: 'acme' });
    await client.execCommand(COUNTED_COMMAND);
    await client.execCommand(COUNTED_COMMAND);
    const error = await toolError(client.execCommand(COUNTED_COMMAND));
    expect(error.message).toContain('HTTP 503');
    expect(runs()).toBe(2);
  });
});
