import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, spawnNode } from '../../helpers/processes.ts';
import { runtimeScenarios } from './scenarios.ts';

/** Node on SQLite: the real `toolgate serve` process (its own exec-server off; the fixtures' is used). */
runtimeScenarios('Node on SQLite', async (fixtures) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'toolgate-e2e-node-'));
  const port = await freePort();
  const gateway = spawnNode(['bin/toolgate.js', 'serve'], { env: { ...fixtures.env, PORT: String(port), TOOLGATE_DATA_DIR: dataDir, TOOLGATE_EXEC_EXTERNAL: '1' } });
  await gateway.waitFor(/toolgate listening on/);
  return {
    fetch: (request) => {
      const url = new URL(request.url);
      return fetch(`http://127.0.0.1:${port}${url.pathname}${url.search}`, { method: request.method, headers: request.headers, body: request.body, duplex: 'half' } as RequestInit);
    },
    stop: async () => {
      await gateway.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
});
