/** What the exec benchmarks share: a temp root, an exec-server on loopback over it, cleanup. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalExecutionEnvironment } from '../lib/exec/local/local-environment.ts';
import { RemoteExecutionEnvironment } from '../lib/exec/client/remote.ts';
import { probeCommandSandbox } from '../lib/exec/sandbox/probe.ts';
import { startExecServer } from '../lib/exec/server/exec-server.ts';
import type { ToolExecutionContext } from '../lib/registry/executor.ts';

export interface ExecPair {
  root: string;
  local: LocalExecutionEnvironment;
  /** The same root served by a real exec-server on 127.0.0.1, reached over signed HTTP. */
  remote: RemoteExecutionEnvironment;
}

/**
 * Runs `body` with a fresh temp root (filled by `fill`) and an exec-server over it; the server
 * is closed and the root removed whatever happens.
 */
export async function withExecPair<T>(prefix: string, fill: (root: string) => Promise<void>, body: (pair: ExecPair) => Promise<T>): Promise<T> {
  const root = await mkdtemp(join(tmpdir(), prefix));
  try {
    await fill(root);
    const secret = crypto.randomUUID();
    // The exec-server's own sandbox (bubblewrap where it works), for the local side too: the same commands, the same cost.
    const sandbox = await probeCommandSandbox();
    const server = await startExecServer({ root, secret, tenants: ['bench'], port: 0, sandbox });
    try {
      return await body({ root, local: new LocalExecutionEnvironment(root, { sandbox }), remote: new RemoteExecutionEnvironment({ url: server.url, secret, tenant: 'bench' }) });
    } finally {
      await server.close();
      await sandbox.close();
    }
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

/** What a coding tool's executor is handed when called directly (no router). */
export function toolContext(): ToolExecutionContext {
  return { signal: new AbortController().signal, call_id: 'bench', thread_id: 'bench', tenant: 'bench', principal: 'bench', env: {} };
}
