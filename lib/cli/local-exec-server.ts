import { cpSync, existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { secretName } from '../crypto/secrets.ts';
import { toHex } from '../crypto/sha256.ts';
import type { Manifest } from '../registry/manifest.ts';
import { startExecServer } from '../exec/server.ts';
import { EXEC_SECRET_VARIABLE } from './exec-server.ts';

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);
const SAMPLE_WORKSPACE = resolve(import.meta.dirname, '../../examples/demo/workspace');

export interface LocalExecServer {
  /** Variables the gateway needs to reach it (its secret). */
  env: Record<string, string>;
  root: string;
  url: string;
  close(): Promise<void>;
}

/**
 * When a manifest's execution environment is on this machine, `toolgate serve` starts the
 * exec-server beside itself, so the coding tools go through the same signed RPC the edge uses.
 * The workspace (TOOLGATE_WORKSPACE, default ./workspace) is created from the sample on first start.
 */
export async function startLocalExecServer(manifest: Manifest, env: NodeJS.ProcessEnv): Promise<LocalExecServer | undefined> {
  const ref = manifest.execution_environment;
  if (!ref || !LOOPBACK.has(new URL(ref.url).hostname) || env.TOOLGATE_EXEC_EXTERNAL === '1') return undefined;
  const root = resolve(env.TOOLGATE_WORKSPACE || 'workspace');
  if (!existsSync(root)) cpSync(SAMPLE_WORKSPACE, root, { recursive: true });
  // The gateway reads the secret under the name the manifest gives it (granted to its tenant).
  const variable = secretName(ref.secret) ?? EXEC_SECRET_VARIABLE;
  const secret = env[variable] || toHex(crypto.getRandomValues(new Uint8Array(32)));
  const port = env.TOOLGATE_EXEC_PORT !== undefined ? Number(env.TOOLGATE_EXEC_PORT) : Number(new URL(ref.url).port || 80);
  let server;
  try {
    server = await startExecServer({ root, secret, tenants: [manifest.tenant], port, host: '127.0.0.1' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      throw new Error(`port ${port} (the demo exec-server) is in use: stop that process, or set TOOLGATE_EXEC_PORT to a free port (0 picks one)`);
    }
    throw error;
  }
  return { env: { [variable]: secret }, root, url: server.url, close: () => server.close() };
}
