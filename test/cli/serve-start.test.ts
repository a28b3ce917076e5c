import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startLocalGateway } from '../../lib/cli/serve.ts';
import { MANIFEST_CHECKS } from '../../lib/registry/manifest/checks.ts';
import { loadPublished } from '../../lib/registry/manifest/manifest-store.ts';
import { SqliteStore } from '../../lib/stores/sqlite/sqlite-store.ts';
import { REPO_ROOT, runNode } from '../helpers/processes.ts';

let dir: string | undefined;
let blocker: Server | undefined;
afterEach(() => {
  blocker?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('toolgate: start-up messages', () => {
  it('--version prints the installed version', async () => {
    const { version } = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };
    for (const flag of ['--version', '-v']) {
      const run = await runNode(['bin/toolgate.js', flag]);
      expect(run.code).toBe(0);
      expect(run.stdout.trim()).toBe(version);
    }
  });

  it('a gateway port already in use says which variable to change, and exits 1', async () => {
    blocker = createServer();
    await new Promise<void>((listening) => blocker!.listen(0, '127.0.0.1', listening));
    const port = (blocker.address() as { port: number }).port;
    dir = mkdtempSync(join(tmpdir(), 'toolgate-port-'));
    const run = await runNode(['bin/toolgate.js', 'serve'], { env: { PORT: String(port), TOOLGATE_DATA_DIR: dir, TOOLGATE_DEMO_KEY: '', TOOLGATE_EXEC_PORT: '0', TOOLGATE_WORKSPACE: join(dir, 'workspace') } });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`toolgate serve: port ${port} (the gateway) is in use on 127.0.0.1: stop that process, or set PORT (or --port) to a free port (0 picks one)`);
  });
});

describe('toolgate serve: the demo manifest is stored as checked', () => {
  it('serve checks the manifest file as a publish does, so its record carries the checks stamp', async () => {
    dir = mkdtempSync(join(tmpdir(), 'toolgate-stamp-'));
    const gateway = await startLocalGateway({ port: 0, dataDir: dir, quiet: true, env: { PATH: process.env.PATH, TOOLGATE_EXEC_PORT: '0', TOOLGATE_WORKSPACE: join(dir, 'workspace') } });
    await gateway.close();
    const manifest = JSON.parse(readFileSync(join(REPO_ROOT, 'examples/demo/manifest.json'), 'utf8')) as { tenant: string; version: string };
    const store = new SqliteStore(join(dir, 'toolgate.db'));
    try {
      const published = await loadPublished(store, manifest.tenant, manifest.version);
      expect(published?.checked).toBe(MANIFEST_CHECKS);
    } finally {
      await store.close();
    }
  });
});
