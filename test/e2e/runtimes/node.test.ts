import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, spawnNode } from '../../helpers/processes.ts';
import { httpTarget } from './http-target.ts';
import { runtimeScenarios } from './scenarios.ts';

/** Node on SQLite: the real `toolgate serve` process (its own exec-server off; the fixtures' is used). */
runtimeScenarios('Node on SQLite', async (fixtures) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'toolgate-e2e-node-'));
  const port = await freePort();
  const gateway = spawnNode(['bin/toolgate.js', 'serve'], { env: { ...fixtures.env, PORT: String(port), TOOLGATE_DATA_DIR: dataDir, TOOLGATE_EXEC_EXTERNAL: '1' } });
  await gateway.waitFor(/toolgate listening on/);
  return {
    ...httpTarget(`http://127.0.0.1:${port}`),
    stop: async () => {
      await gateway.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
});
