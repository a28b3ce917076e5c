import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve, type ServerType } from '@hono/node-server';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Manifest } from '../../lib/registry/manifest/manifest.ts';
import { testGateway } from '../helpers/gateway.ts';
import { baseManifest } from '../helpers/manifests.ts';
import { startMcpUpstream, type McpUpstream } from '../helpers/mcp-upstream.ts';
import { runNode } from '../helpers/processes.ts';

let upstream: McpUpstream;
let dir: string;
beforeEach(async () => {
  upstream = await startMcpUpstream();
  dir = mkdtempSync(join(tmpdir(), 'toolgate-import-mcp-'));
});
afterEach(async () => { await upstream.close(); });

const TOKEN = { CRM_MCP_TOKEN: 'Bearer upstream-token' };

function manifestFile(imports: unknown[], version = '1'): string {
  const file = join(dir, `manifest-${version}.json`);
  writeFileSync(file, JSON.stringify(baseManifest({ version, policy: { read: 'grant', write: 'review', execute: 'review' }, mcp_imports: imports as Manifest['mcp_imports'] }), null, 2));
  return file;
}
const crm = (extra: Record<string, unknown> = {}) => ({ server: 'crm', url: upstream.secureUrl, headers: { Authorization: 'env:CRM_MCP_TOKEN' }, tools: ['search', 'create_contact'], prefix: 'crm_', tiers: { search: 'read' }, ...extra });

describe('toolgate manifest import-mcp', () => {
  it('prints the manifest with the pinned tools, and what it pinned on stderr', async () => {
    const file = manifestFile([crm({ rename: { search: 'find_contact' } })]);
    const { code, stdout, stderr } = await runNode(['bin/toolgate.js', 'manifest', 'import-mcp', file], { env: TOKEN });
    expect(code).toBe(0);
    expect(stderr).toBe(`pinned 2 tools from "crm" (${upstream.secureUrl})\n  find_contact ← search (read)\n  crm_create_contact ← create_contact (write)\n`);
    const manifest = JSON.parse(stdout) as Manifest;
    expect(manifest.mcp_imports).toHaveLength(1);
    expect(manifest.tools.map((t) => [t.name, t.tier, t.description])).toEqual([['echo', undefined, undefined], ['find_contact', 'read', 'Searches contacts by name or email.'], ['crm_create_contact', 'write', 'Creates a contact.']]);
    expect(manifest.tools[1].executor).toEqual({ kind: 'mcp', server: 'crm', url: upstream.secureUrl, tool: 'search', headers: { Authorization: 'env:CRM_MCP_TOKEN' }, protocol: '2025-11-25' });
    expect(stdout).not.toContain('upstream-token');
  });

  it('writes --out, which validates, and importing it again gives the same file', async () => {
    const out = join(dir, 'pinned.json');
    const first = await runNode(['bin/toolgate.js', 'manifest', 'import-mcp', manifestFile([crm()]), '--out', out], { env: TOKEN });
    expect(first).toMatchObject({ code: 0, stdout: expect.stringContaining(`wrote ${out} (version 1, 3 tools)`) });
    expect(await runNode(['bin/toolgate.js', 'manifest', 'validate', out])).toMatchObject({ code: 0, stdout: `${out}: ok (tenant "acme", version 1, 3 tools)\n` });
    const pinned = readFileSync(out, 'utf8');
    const again = await runNode(['bin/toolgate.js', 'manifest', 'import-mcp', out], { env: TOKEN });
    expect(again.stdout).toBe(pinned);
  });

  it('fails with a message naming the import and what to change', async () => {
    const missingTool = await runNode(['bin/toolgate.js', 'manifest', 'import-mcp', manifestFile([crm({ tools: ['search', 'merge_contacts'] })])], { env: TOKEN });
    expect(missingTool.code).toBe(1);
    expect(missingTool.stderr).toContain(`mcp_imports[0] ("crm"): the server at ${upstream.secureUrl} has no tool "merge_contacts"`);
    const noToken = await runNode(['bin/toolgate.js', 'manifest', 'import-mcp', manifestFile([crm()])], { env: { CRM_MCP_TOKEN: '' } });
    expect(noToken.code).toBe(1);
    expect(noToken.stderr).toContain('secret CRM_MCP_TOKEN is not set');
    const unpinned = manifestFile([crm()], '2');
    expect(await runNode(['bin/toolgate.js', 'manifest', 'validate', unpinned])).toMatchObject({ code: 0, stdout: `${unpinned}: ok (tenant "acme", version 2, 1 tools)\n  mcp_imports "crm" not pinned yet: \`toolgate manifest import-mcp ${unpinned}\` pins them (publish does it first)\n` });
    const nothing = await runNode(['bin/toolgate.js', 'manifest', 'import-mcp', manifestFile([])]);
    expect(nothing).toMatchObject({ code: 1, stderr: expect.stringContaining('nothing to import; add an "mcp_imports" entry') });
  });
});

describe('toolgate manifest publish with mcp_imports', () => {
  let server: ServerType | undefined;
  afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

  it('pins the tools first, says which, and publishes the pinned manifest', async () => {
    // The gateway's operator granted the token the manifest names to its tenant.
    const gw = await testGateway([], { admin: { tenant: 'acme', principal: 'ops', scopes: ['admin'] }, agent: { tenant: 'acme' } }, { env: { TOOLGATE_TENANT_SECRETS: 'acme:CRM_MCP_TOKEN' } });
    const url = await new Promise<string>((resolve) => {
      server = serve({ fetch: gw.app.fetch, port: 0, hostname: '127.0.0.1' }, (info: AddressInfo) => resolve(`http://127.0.0.1:${info.port}`));
    });
    const env = { ...TOKEN, TOOLGATE_URL: url, TOOLGATE_KEY: 'admin' };
    const file = manifestFile([crm()], '7');
    const { code, stdout, stderr } = await runNode(['bin/toolgate.js', 'manifest', 'publish', file, '--activate'], { env });
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toContain(`pinned 2 tools from "crm" (${upstream.secureUrl})\n  crm_search ← search (read)\n  crm_create_contact ← create_contact (write)\n${file}: ok (tenant "acme", version 7, 3 tools)\npublished: version 7`);
    const tools = (await (await gw.request('/v1/tools', { key: 'agent' })).json()) as { tools: Array<{ name: string }> };
    expect(tools.tools.map((t) => t.name)).toEqual(expect.arrayContaining(['crm_search', 'crm_create_contact']));

    // The upstream changes its description: the same version cannot silently take it.
    upstream.tools[0].tool.description = 'Searches, differently.';
    const republished = await runNode(['bin/toolgate.js', 'manifest', 'publish', file], { env });
    expect(republished.code).toBe(1);
    expect(republished.stderr).toContain('version 7 of tenant "acme" is already published with other content');
  });
});
