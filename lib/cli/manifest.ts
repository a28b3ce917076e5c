import { parseArgs } from 'node:util';
import type { Manifest } from '../registry/manifest.ts';
import { unpinnedImports } from '../registry/mcp-import-check.ts';
import { loadManifestFile, manifestLoadOptions } from './manifest-file.ts';
import { importMcpCommand, pinManifestImports, printProblems } from './manifest-import.ts';

const USAGE = `Usage:
  toolgate manifest validate FILE                 check a manifest; prints every problem with its JSON path
                                                  (and secrets not granted / internal URLs not allowed, when
                                                  TOOLGATE_TENANT_SECRETS / TOOLGATE_EGRESS_ALLOW are set)
  toolgate manifest import-mcp FILE [--out OUT]   pin the tools (and resources, templates, prompts) of its mcp_imports; prints the manifest (or writes OUT)
  toolgate manifest publish FILE [--activate]     publish a version (immutable) to the gateway, pinning mcp_imports first
  toolgate manifest activate VERSION              make a published version the active one
  toolgate manifest rollback                      return to the version active before
  toolgate manifest list                          published versions, the active one marked
  toolgate manifest diff A B                      tools added, removed and changed from A to B
All but validate and import-mcp talk to a gateway: --url URL --key KEY (or TOOLGATE_URL and TOOLGATE_KEY),
with an API key holding the admin scope; they act on that key's tenant. Importing resolves "env:NAME"
headers from this process's environment.`;

interface Target {
  url: string;
  key: string;
}

type Answer = { ok: true; body: Record<string, unknown> } | { ok: false; code: number };

async function request(target: Target, method: 'GET' | 'POST', path: string, body?: unknown): Promise<Answer> {
  let response: Response;
  try {
    response = await fetch(`${target.url.replace(/\/+$/, '')}/v1/admin${path}`, {
      method,
      headers: { authorization: `Bearer ${target.key}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (error) {
    console.error(`cannot reach ${target.url}: ${(error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message}`);
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

const remote: Record<string, (target: Target, args: string[], activate: boolean) => Promise<number>> = {
  async publish(target, [file], activate) {
    if (!file) return usage();
    const manifest = await publishable(file);
    if (!manifest) return 1;
    const published = await request(target, 'POST', '/manifests', manifest);
    if (!published.ok) return published.code;
    const { status, version, hash } = published.body as { status: string; version: string; hash: string };
    console.log(`${status === 'published' ? 'published' : 'already published (same content)'}: version ${version} (sha256 ${hash.slice(0, 12)})`);
    return activate ? remote.activate(target, [version], false) : 0;
  },
  async activate(target, [version]) {
    if (!version) return usage();
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
    if (!from || !to) return usage();
    const diffed = await request(target, 'GET', `/manifests/diff?from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`);
    if (!diffed.ok) return diffed.code;
    const d = diffed.body as { added: string[]; removed: string[]; changed: Array<{ name: string; fields: string[] }>; settings: string[] };
    console.log(`${from} → ${to}`);
    for (const name of d.added) console.log(`+ ${name}`);
    for (const name of d.removed) console.log(`- ${name}`);
    for (const change of d.changed) console.log(`~ ${change.name} (${change.fields.join(', ')})`);
    for (const setting of d.settings) console.log(`~ [${setting}]`);
    if (d.added.length + d.removed.length + d.changed.length + d.settings.length === 0) console.log('  no differences');
    return 0;
  },
};

function usage(): number {
  console.error(USAGE);
  return 2;
}

/** `toolgate manifest ...`. */
export async function manifestCommand(args: string[]): Promise<number> {
  const [action, ...rest] = args;
  if (action === 'validate') return rest[0] ? validate(rest[0]) : usage();
  if (action === 'import-mcp') return importMcpCommand(rest, usage);
  const command = action ? remote[action] : undefined;
  if (!command) return usage();
  const { values, positionals } = parseArgs({ args: rest, allowPositionals: true, options: { url: { type: 'string' }, key: { type: 'string' }, activate: { type: 'boolean' } } });
  const url = values.url ?? process.env.TOOLGATE_URL;
  const key = values.key ?? process.env.TOOLGATE_KEY;
  if (!url || !key) {
    console.error('toolgate manifest: pass --url and --key (or set TOOLGATE_URL and TOOLGATE_KEY) for a gateway and an API key with the admin scope');
    return 2;
  }
  return command({ url, key }, positionals, values.activate === true);
}
