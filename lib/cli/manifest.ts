import type { Manifest } from '../registry/manifest/manifest.ts';
import { oldToNew, type ManifestDiff } from '../registry/manifest/diff.ts';
import { unpinnedImports } from '../registry/mcp-upstream/import-check.ts';
import { flagOf, textOf, type Invocation } from './command-line.ts';
import { fetchGateway, GatewayUnreachableError } from './gateway-fetch.ts';
import { loadManifestFile, manifestLoadOptions } from './manifest-file.ts';
import { importMcpCommand, pinManifestImports, printProblems } from './manifest-import.ts';

interface Target {
  url: string;
  key: string;
}

type Answer = { ok: true; body: Record<string, unknown> } | { ok: false; code: number };

async function request(target: Target, method: 'GET' | 'POST', path: string, body?: unknown): Promise<Answer> {
  let response: Response;
  try {
    response = await fetchGateway(target.url, `${target.url.replace(/\/+$/, '')}/v1/admin${path}`, {
      method,
      headers: { authorization: `Bearer ${target.key}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (error) {
    if (!(error instanceof GatewayUnreachableError)) throw error;
    console.error(error.message);
    return { ok: false, code: 1 };
  }
  const text = await response.text();
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(text) as Record<string, unknown>;
  } catch {
    console.error(`${target.url} answered ${response.status} with something that is not JSON`);
    return { ok: false, code: 1 };
  }
  if (response.ok) return { ok: true, body: parsed };
  const error = parsed.error as { message?: string; problems?: Array<{ path: string; message: string }> } | undefined;
  console.error(`${response.status}: ${error?.message ?? text}`);
  for (const problem of error?.problems ?? []) console.error(`  ${problem.path}: ${problem.message}`);
  return { ok: false, code: 1 };
}

const okLine = (file: string, manifest: Manifest) => `${file}: ok (tenant "${manifest.tenant}", version ${manifest.version}, ${manifest.tools.length} tools)`;

/** Checks a manifest as the gateway will, including TOOLGATE_TENANT_SECRETS and TOOLGATE_EGRESS_ALLOW where they are set. */
function validate(file: string): number {
  let options;
  try {
    options = manifestLoadOptions(process.env);
  } catch (error) {
    console.error(`toolgate manifest validate: ${(error as Error).message}`);
    return 2;
  }
  const result = loadManifestFile(file, options);
  if (result.ok) {
    console.log(okLine(file, result.manifest));
    const unpinned = unpinnedImports(result.manifest);
    if (unpinned.length > 0) console.log(`  mcp_imports ${unpinned.map((server) => `"${server}"`).join(', ')} not pinned yet: \`toolgate manifest import-mcp ${file}\` pins them (publish does it first)`);
    return 0;
  }
  printProblems(file, result.problems);
  return 1;
}

/** The manifest to publish: checked, with its mcp_imports pinned first. Undefined after printing why not. */
async function publishable(file: string): Promise<Manifest | undefined> {
  const loaded = loadManifestFile(file);
  if (!loaded.ok) {
    printProblems(file, loaded.problems);
    return undefined;
  }
  const manifest = loaded.manifest.mcp_imports?.length ? await pinManifestImports(file, loaded.manifest, (line) => console.log(line)) : loaded.manifest;
  if (manifest) console.log(okLine(file, manifest));
  return manifest;
}

const remote: Record<string, (target: Target, operands: string[], activate: boolean) => Promise<number>> = {
  async publish(target, [file], activate) {
    const manifest = await publishable(file);
    if (!manifest) return 1;
    const published = await request(target, 'POST', '/manifests', manifest);
    if (!published.ok) return published.code;
    const { status, version, hash } = published.body as { status: string; version: string; hash: string };
    console.log(`${status === 'published' ? 'published' : 'already published (same content)'}: version ${version} (sha256 ${hash.slice(0, 12)})`);
    return activate ? remote.activate(target, [version], false) : 0;
  },
  async activate(target, [version]) {
    const moved = await request(target, 'POST', `/manifests/${encodeURIComponent(version)}/activate`);
    if (!moved.ok) return moved.code;
    console.log(`active version: ${String(moved.body.to)} (was ${String(moved.body.from ?? 'none')})`);
    return 0;
  },
  async rollback(target) {
    const moved = await request(target, 'POST', '/manifests/rollback');
    if (!moved.ok) return moved.code;
    console.log(`rolled back: active version ${String(moved.body.to)} (was ${String(moved.body.from)})`);
    return 0;
  },
  async list(target) {
    const listed = await request(target, 'GET', '/manifests');
    if (!listed.ok) return listed.code;
    const versions = listed.body.versions as Array<{ version: string; published_at: string; published_by: string; hash: string; active: boolean }>;
    console.log(`tenant "${String(listed.body.tenant)}": ${versions.length} version${versions.length === 1 ? '' : 's'}`);
    for (const v of versions) console.log(`${v.active ? '*' : ' '} ${v.version.padEnd(16)} ${v.published_at}  ${v.published_by}  ${v.hash.slice(0, 12)}`);
    return 0;
  },
  async diff(target, [from, to]) {
    const diffed = await request(target, 'GET', `/manifests/diff?from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`);
    if (!diffed.ok) return diffed.code;
    const d = diffed.body as unknown as ManifestDiff;
    console.log(`${from} → ${to}`);
    for (const name of d.added) console.log(`+ ${name}`);
    for (const name of d.removed) console.log(`- ${name}`);
    for (const tool of d.changed) {
      console.log(`~ ${tool.name}`);
      for (const change of tool.changes) console.log(`    ${change.path}: ${oldToNew(change)}`);
    }
    for (const change of d.setting_changes) console.log(`~ [${change.path}] ${oldToNew(change)}`);
    if (d.added.length + d.removed.length + d.changed.length + d.settings.length === 0) console.log('  no differences');
    return 0;
  },
};

/** `toolgate manifest ACTION`, its command line parsed (command-tree.ts). */
export async function manifestCommand(action: string, invocation: Invocation): Promise<number> {
  const [file] = invocation.operands;
  if (action === 'validate') return validate(file);
  if (action === 'import-mcp') return importMcpCommand(file, textOf(invocation, 'out'));
  const url = textOf(invocation, 'url') ?? process.env.TOOLGATE_URL;
  const key = textOf(invocation, 'key') ?? process.env.TOOLGATE_KEY;
  if (!url || !key) {
    console.error(`toolgate manifest ${action}: pass --url and --key (or set TOOLGATE_URL and TOOLGATE_KEY) for a gateway and an API key with the admin scope`);
    return 2;
  }
  return remote[action]({ url, key }, invocation.operands, flagOf(invocation, 'activate'));
}
