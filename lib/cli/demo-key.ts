import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateApiKey } from '../governance/api-keys.ts';

/**
 * The demo tenant's API key: TOOLGATE_DEMO_KEY when set, else the one generated at first
 * start and kept in the data folder (readable by its owner only), so it survives restarts.
 */
export function demoApiKey(dataDir: string, env: NodeJS.ProcessEnv): { key: string; source: string } {
  if (env.TOOLGATE_DEMO_KEY) return { key: env.TOOLGATE_DEMO_KEY, source: 'TOOLGATE_DEMO_KEY' };
  const file = join(dataDir, 'demo-key');
  if (existsSync(file)) return { key: readFileSync(file, 'utf8').trim(), source: file };
  mkdirSync(dataDir, { recursive: true });
  const key = generateApiKey();
  writeFileSync(file, `${key}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  return { key, source: `${file} (generated now)` };
}
