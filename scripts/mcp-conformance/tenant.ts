import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from '../dev/free-port.ts';
import { startAuthProxy, type AuthProxy } from './auth-proxy.ts';
import { boundedNode, runBoundedNode, type BoundedProcess } from './bounded-process.ts';

/**
 * A `toolgate serve` process with one tenant, "conformance", whose manifest imports every tool of
 * an upstream MCP server (`mcp_imports`, published with `toolgate manifest publish`), and the
 * auth proxy the suite calls it through. The gateway answers only to its own name and the
 * proxy's (TOOLGATE_ALLOWED_HOSTS), as an operator sets it up against DNS rebinding.
 */
export interface ConformanceTenant {
  /** The tenant's MCP endpoint, through the auth proxy. */
  mcpUrl: string;
  /** What `manifest publish` said (the pinned counts). */
  published: string;
  stop(): Promise<void>;
}

export const TENANT = 'conformance';
const SERVE_SECONDS = 600;
const CLI_SECONDS = 120;

/**
 * What one import takes: every tool, and every resource, template and prompt where the manifest
 * format has those fields (the passthrough of upstream resources and prompts adds them; until
 * then the manifest would refuse them as unknown).
 */
export function conformanceImport(upstreamUrl: string): Record<string, unknown> {
  const schema = JSON.parse(readFileSync(new URL('../../schema/manifest.v1.json', import.meta.url), 'utf8')) as { $defs: { mcpImport: { properties: Record<string, unknown> } } };
  const known = schema.$defs.mcpImport.properties;
  const optional = Object.fromEntries(['resources', 'resource_templates', 'prompts'].filter((field) => field in known).map((field) => [field, 'all']));
  return { server: 'conformance', url: upstreamUrl, tools: 'all', ...optional, tier: 'read', timeout_ms: 15_000 };
}

async function toolgate(args: string[], env: Record<string, string>): Promise<string> {
  const ran = await runBoundedNode(['bin/toolgate.js', ...args], { env, seconds: CLI_SECONDS });
  if (ran.code !== 0) throw new Error(`toolgate ${args.slice(0, 2).join(' ')} failed (${ran.code}):\n${ran.stdout}${ran.stderr}`);
  return ran.stdout;
}

async function createKey(dataDir: string, principal: string, scopes: string): Promise<string> {
  const out = await toolgate(['keys', 'create', '--tenant', TENANT, '--principal', principal, '--scopes', scopes], { TOOLGATE_DATA_DIR: dataDir });
  const key = out.match(/tg_[0-9a-f]+/)?.[0];
  if (!key) throw new Error(`keys create printed no key:\n${out}`);
  return key;
}

/** Starts the gateway on a free port of 127.0.0.1 with `dataDir` as its data folder, imports `upstreamUrl`, and starts the proxy. */
export async function startConformanceTenant(upstreamUrl: string, dataDir: string): Promise<ConformanceTenant> {
  const adminKey = await createKey(dataDir, 'ops', 'admin');
  const agentKey = await createKey(dataDir, 'agent', 'conformance');
  const manifestFile = join(dataDir, 'manifest.json');
  const manifest = { format: 'toolgate.manifest/v1', tenant: TENANT, version: '1', profile: 'openai', policy: { read: 'grant', write: 'deny', execute: 'deny' }, mcp_imports: [conformanceImport(upstreamUrl)], tools: [] };
  writeFileSync(manifestFile, JSON.stringify(manifest, null, 2));

  const port = await freePort();
  const gatewayUrl = `http://127.0.0.1:${port}`;
  const egress = new URL(upstreamUrl).host;
  let proxy: AuthProxy | undefined;
  let gateway: BoundedProcess | undefined;
  try {
    proxy = await startAuthProxy(gatewayUrl, agentKey);
    gateway = boundedNode(['bin/toolgate.js', 'serve'], {
      seconds: SERVE_SECONDS,
      env: {
        PORT: String(port),
        TOOLGATE_DATA_DIR: dataDir,
        TOOLGATE_DEMO_KEY: '',
        TOOLGATE_EXEC_PORT: '0',
        TOOLGATE_WORKSPACE: join(dataDir, 'workspace'),
        TOOLGATE_EGRESS_ALLOW: egress,
        TOOLGATE_ALLOWED_HOSTS: `127.0.0.1:${port},${proxy.host}`,
      },
    });
    await gateway.waitFor(/toolgate listening on http:\/\/127\.0\.0\.1:\d+/);
    const published = await toolgate(['manifest', 'publish', manifestFile, '--activate'], { TOOLGATE_URL: gatewayUrl, TOOLGATE_KEY: adminKey, TOOLGATE_EGRESS_ALLOW: egress });
    const [running, listening] = [gateway, proxy];
    return {
      mcpUrl: `${listening.url}/mcp/${TENANT}`,
      published,
      async stop() {
        await listening.close();
        await running.stop();
      },
    };
  } catch (error) {
    await proxy?.close();
    await gateway?.stop();
    throw error;
  }
}
