import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RemoteExecutionEnvironment } from '../../lib/exec/client/remote.ts';
import { startExecServer } from '../../lib/exec/server/exec-server.ts';
import { makeSandbox, processesMentioning, SLOW_SEARCH_PATTERN, slowSearchText, waitUntil, type Sandbox } from '../exec/helpers.ts';

const SECRET = 'boundaries3-file-slots-secret-0123456789abcdef';

let sandbox: Sandbox;
beforeEach(async () => {
  sandbox = await makeSandbox();
});
afterEach(() => sandbox.cleanup());

/**
 * Boundaries round 3, attacked: command slots are shared per tenant, but the exec-server's file
 * operation slots (read, write, grep, glob: 4 at once) were one queue for every tenant, served in
 * order of arrival. One tenant's slow searches (a large tree, a costly pattern: seconds each,
 * and as many as a batch holds) took every slot, and another tenant's one-line read waited
 * behind them until it was refused `unavailable`: one tenant starved the others of files.
 * Now they are shared like command slots: each tenant is guaranteed its part, and waits in line
 * only for the rest.
 */
describe("attack: one tenant's slow searches hold every file operation slot", () => {
  it("another tenant's read still gets its share at once (real exec-server, real ripgrep)", async () => {
    await Promise.all([1, 2, 3].map((seed) => writeFile(join(sandbox.root, `big-${seed}.txt`), slowSearchText(seed))));
    await writeFile(join(sandbox.root, 'small.txt'), 'hello\n');
    // Two file operations at once, waited for 3 s at most: small numbers, the same rule as the defaults.
    const server = await startExecServer({ root: sandbox.root, secret: SECRET, tenants: ['hog', 'other'], port: 0, maxFileOperations: 2, fileOperationWaitMs: 3_000 });
    const hog = new RemoteExecutionEnvironment({ url: server.url, secret: SECRET, tenant: 'hog', timeoutMs: 60_000 });
    const other = new RemoteExecutionEnvironment({ url: server.url, secret: SECRET, tenant: 'other', timeoutMs: 60_000 });
    try {
      const marker = `zq${randomBytes(8).toString('hex')}`;
      // A batch's worth of searches that each keep ripgrep busy for seconds.
      const searches = Array.from({ length: 6 }, () => hog.grep(`${SLOW_SEARCH_PATTERN}|${marker}`, '.').catch((error: unknown) => error));
      expect(await waitUntil(() => processesMentioning(marker).length > 0, 10_000)).toBe(true);
      // Every search of the batch has arrived by the time one runs; give a second one the chance to start too.
      await waitUntil(() => processesMentioning(marker).length > 1, 1_000);
      expect(new TextDecoder().decode(await other.readFile('small.txt'))).toBe('hello\n');
      expect(processesMentioning(marker).length).toBeGreaterThan(0);
      void searches;
    } finally {
      await server.close();
    }
  }, 60_000);

  /**
   * The same tenant's large writes then wait in its line, each holding its request body: two of
   * them filled the bytes the exec-server holds for all requests at once, and every request of
   * every other tenant, however small, was refused `server_busy` (503) for as long as they waited.
   */
  it("its large writes waiting in line hold no more of the request-body bytes than its share", async () => {
    await Promise.all([1, 2].map((seed) => writeFile(join(sandbox.root, `big-${seed}.txt`), slowSearchText(seed))));
    await writeFile(join(sandbox.root, 'small.txt'), 'hello\n');
    const content = new Uint8Array(3 * 1024 * 1024).fill(0x61);
    const marker = `zq${randomBytes(8).toString('hex')}`;
    const pattern = `${SLOW_SEARCH_PATTERN}|${marker}`;
    // The bodies RemoteExecutionEnvironment sends (its nonce is 32 hex digits).
    const rpcBody = (method: string, params: Record<string, unknown>) => JSON.stringify({ method, params, tenant: 'hog', nonce: '0'.repeat(32) }).length;
    const bodyBytes = rpcBody('writeFile', { path: 'w1.txt', content_base64: Buffer.from(content).toString('base64') });
    const searchBytes = rpcBody('grep', { pattern, path: '.', options: {} });
    // Room for the search, the two writes and 50 bytes more: less than any other request's body.
    const server = await startExecServer({
      root: sandbox.root,
      secret: SECRET,
      tenants: ['hog', 'other'],
      port: 0,
      maxFileOperations: 2,
      fileOperationWaitMs: 5_000,
      maxBodyBytes: bodyBytes + 1_000,
      maxBufferedBodyBytes: searchBytes + 2 * bodyBytes + 50,
    });
    const hog = new RemoteExecutionEnvironment({ url: server.url, secret: SECRET, tenant: 'hog', timeoutMs: 60_000 });
    const other = new RemoteExecutionEnvironment({ url: server.url, secret: SECRET, tenant: 'other', timeoutMs: 60_000 });
    const held = async () => ((await (await fetch(`${server.url}/healthz`)).json()) as { requests: { body_bytes_held: number } }).requests.body_bytes_held;
    try {
      const search = hog.grep(pattern, '.').catch((error: unknown) => error);
      expect(await waitUntil(() => processesMentioning(marker).length > 0, 10_000)).toBe(true);
      const write = (path: string) => hog.writeFile(path, content).then(() => 'written', (error: unknown) => (error as Error).message);
      // The first write waits in line, its body held.
      const first = write('w1.txt');
      for (let tries = 0; tries < 200 && (await held()) < searchBytes + bodyBytes; tries++) await new Promise((resolve) => setTimeout(resolve, 25));
      expect(await held()).toBe(searchBytes + bodyBytes);
      // The second would wait too (5 s), holding the rest of the budget; past the hog's share it is refused at once.
      let second: string | undefined;
      const secondDone = write('w2.txt').then((outcome) => (second = outcome));
      for (let tries = 0; tries < 120 && second === undefined; tries++) await new Promise((resolve) => setTimeout(resolve, 25));
      void first;
      void secondDone;
      expect(new TextDecoder().decode(await other.readFile('small.txt'))).toBe('hello\n');
      void search;
    } finally {
      await server.close();
    }
  }, 60_000);
});

/**
 * The exec-server remembers each signed request's nonce for the signature window, up to a
 * number (500,000: 800 requests a second), and refuses every request past it. That number was
 * one pool for all tenants: one tenant's flood of cheap requests (a missing file asked for, a
 * command past its share: each refused at once, each a nonce) filled it, and every other
 * tenant's requests were refused `too_many_requests` until the window passed (5 minutes).
 */
describe("attack: one tenant's flood of requests uses up the nonces every tenant needs", () => {
  it('each tenant is refused past its own part; the others keep theirs (real exec-server)', async () => {
    await writeFile(join(sandbox.root, 'small.txt'), 'hello\n');
    const server = await startExecServer({ root: sandbox.root, secret: SECRET, tenants: ['hog', 'other'], port: 0, maxNonces: 10 });
    const hog = new RemoteExecutionEnvironment({ url: server.url, secret: SECRET, tenant: 'hog' });
    const other = new RemoteExecutionEnvironment({ url: server.url, secret: SECRET, tenant: 'other' });
    try {
      const flood: string[] = [];
      for (let n = 0; n < 12; n++) flood.push(await hog.fileExists(`missing-${n}`).then(() => 'answered', (error: unknown) => (error as Error).message));
      expect(flood.filter((outcome) => outcome === 'answered')).toHaveLength(5);
      expect(flood.at(-1)).toContain('too many within the signature window');
      expect(new TextDecoder().decode(await other.readFile('small.txt'))).toBe('hello\n');
    } finally {
      await server.close();
    }
  });
});
