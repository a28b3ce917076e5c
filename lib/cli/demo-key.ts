import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateApiKey } from '../governance/api-keys.ts';

export interface DemoKey {
  key: string;
  source: string;
}

/**
 * One of the demo tenant's keys: the variable when set, else the key generated at first start and
 * kept in the data folder (readable by its owner only), so it survives restarts.
 */
function demoKey(dataDir: string, env: NodeJS.ProcessEnv, variable: string, fileName: string): DemoKey {
  if (env[variable]) return { key: env[variable], source: variable };
  const file = join(dataDir, fileName);
  if (existsSync(file)) return { key: readFileSync(file, 'utf8').trim(), source: file };
  mkdirSync(dataDir, { recursive: true });
  const key = generateApiKey();
  writeFileSync(file, `${key}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  return { key, source: `${file} (generated now)` };
}

/** The agent's key (principal demo-user): TOOLGATE_DEMO_KEY or .toolgate/demo-key. */
export const demoApiKey = (dataDir: string, env: NodeJS.ProcessEnv) => demoKey(dataDir, env, 'TOOLGATE_DEMO_KEY', 'demo-key');

/**
 * The demo's two keys: the agent's, and the operator's (principal demo-admin, which approves and
 * administers: TOOLGATE_DEMO_ADMIN_KEY or .toolgate/demo-admin-key). Two people, so the agent's
 * key can neither approve its own calls nor mint a key that could.
 */
export function demoKeys(dataDir: string, env: NodeJS.ProcessEnv): { agent: DemoKey; admin: DemoKey } {
  const agent = demoApiKey(dataDir, env);
  const admin = demoKey(dataDir, env, 'TOOLGATE_DEMO_ADMIN_KEY', 'demo-admin-key');
  if (admin.key === agent.key) throw new Error(`the demo admin key (${admin.source}) is the demo agent key (${agent.source}): give them different values, so the agent cannot approve its own calls`);
  return { agent, admin };
}

/** The banner's lines about the demo's keys: whose each is and what it may do. */
export function demoKeyLines(demo: { agent: DemoKey; admin: DemoKey }): string[] {
  return [
    `demo API key: ${demo.agent.key}  (from ${demo.agent.source})`,
    `  the agent's, principal demo-user: calls tools; cannot approve, administer or mint keys`,
    `demo admin key: ${demo.admin.key}  (from ${demo.admin.source})`,
    `  the operator's, principal demo-admin: approves calls, manages keys and manifests, reads the audit`,
  ];
}
