import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RemoteExecutionEnvironment } from '../../lib/exec/remote.ts';
import { startExecServer } from '../../lib/exec/server.ts';
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
});
