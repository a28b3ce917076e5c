import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Manifest, McpImport } from '../../lib/registry/manifest/manifest.ts';
import { loadManifest } from '../../lib/registry/manifest/loader.ts';
import { importMcpTools, pinMcpImports } from '../../lib/registry/mcp-upstream/import.ts';
import { closedPort } from '../helpers/http-server.ts';
import { baseManifest, loaderOptions } from '../helpers/manifests.ts';
import { startMcpUpstream, type McpUpstream } from '../helpers/mcp-upstream.ts';

let upstream: McpUpstream;
beforeEach(async () => { upstream = await startMcpUpstream(); });
afterEach(async () => { await upstream.close(); });

const env = { CRM_MCP_TOKEN: 'Bearer upstream-token' };
const withImports = (imports: Array<Partial<McpImport>>, tools: unknown[] = [{ name: 'echo', executor: { kind: 'builtin' } }]): Manifest =>
  baseManifest({ mcp_imports: imports.map((spec) => ({ server: 'crm', url: upstream.url, tools: 'all' as const, ...spec })), tools });

const mustLoad = (manifest: Manifest) => {
  const loaded = loadManifest(manifest, loaderOptions());
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.problems));
  return loaded.manifest;
};

describe('importing tools from an MCP server', () => {
  it('pins every tool (following tools/list pages) with the upstream description and schema, tier write by default', async () => {
    const { manifest, pinned } = await pinMcpImports(withImports([{}]), env);
    expect(pinned).toEqual([
      { server: 'crm', name: 'search', tool: 'search', tier: 'write' },
      { server: 'crm', name: 'create_contact', tool: 'create_contact', tier: 'write' },
      { server: 'crm', name: 'admin_report', tool: 'admin_report', tier: 'write' },
    ]);
    expect(manifest.tools[0]).toEqual({ name: 'echo', executor: { kind: 'builtin' } });
    expect(manifest.tools[1]).toEqual({
      name: 'search',
      description: 'Searches contacts by name or email.',
      input_schema: { type: 'object', properties: { query: { type: 'string', description: 'What to look for' }, limit: { type: 'integer', minimum: 1 } }, required: ['query'], additionalProperties: false },
      tier: 'write',
      executor: { kind: 'mcp', server: 'crm', url: upstream.url, tool: 'search', protocol: '2025-11-25' },
    });
    // The upstream's readOnlyHint is not a tier: only the manifest decides.
    expect(manifest.tools.map((t) => t.tier)).toEqual([undefined, 'write', 'write', 'write']);
    expect(mustLoad(manifest).mcp_imports).toHaveLength(1);
  });

  it('takes a list, with prefix, rename, tiers, scopes, timeout and headers', async () => {
    const manifest = await importMcpTools(
      withImports([{ url: upstream.secureUrl, headers: { Authorization: 'env:CRM_MCP_TOKEN', 'X-Client': 'toolgate-tests' }, tools: ['search', 'create_contact'], prefix: 'crm_', rename: { search: 'find_contact' }, tier: 'write', tiers: { search: 'read' }, scopes: ['crm'], timeout_ms: 5000 }]),
      env,
    );
    expect(manifest.tools.slice(1).map(({ name, tier, scopes, timeout_ms, executor }) => ({ name, tier, scopes, timeout_ms, executor }))).toEqual([
      { name: 'find_contact', tier: 'read', scopes: ['crm'], timeout_ms: 5000, executor: { kind: 'mcp', server: 'crm', url: upstream.secureUrl, tool: 'search', headers: { Authorization: 'env:CRM_MCP_TOKEN', 'X-Client': 'toolgate-tests' }, protocol: '2025-11-25' } },
      { name: 'crm_create_contact', tier: 'write', scopes: ['crm'], timeout_ms: 5000, executor: { kind: 'mcp', server: 'crm', url: upstream.secureUrl, tool: 'create_contact', headers: { Authorization: 'env:CRM_MCP_TOKEN', 'X-Client': 'toolgate-tests' }, protocol: '2025-11-25' } },
    ]);
    mustLoad(manifest);
  });

  it('a later change upstream does not change the pin; importing again refreshes it and drops tools that left', async () => {
    const first = await importMcpTools(withImports([{}]), env);
    const pinnedSearch = structuredClone(first.tools[1]);
    upstream.tools[0].tool.description = 'Searches everything, now with deletes.';
    (upstream.tools[0].tool.inputSchema.properties as Record<string, unknown>).purge = { type: 'boolean' };
    upstream.tools = upstream.tools.filter((t) => t.tool.name !== 'admin_report');
    expect(first.tools[1]).toEqual(pinnedSearch);

    const second = await importMcpTools(first, env);
    expect(second.tools.map((t) => t.name)).toEqual(['echo', 'search', 'create_contact']);
    expect(second.tools[1].description).toBe('Searches everything, now with deletes.');
    expect(second.tools[1].input_schema).toMatchObject({ properties: { purge: { type: 'boolean' } } });
    expect(first.tools[1]).toEqual(pinnedSearch);
  });

  it('keeps two imports apart and leaves the input manifest alone', async () => {
    const other = await startMcpUpstream();
    try {
      const input = withImports([{ tools: ['search'] }, { server: 'crm2', url: other.url, tools: ['search'], prefix: 'b_' }]);
      const before = structuredClone(input);
      const manifest = await importMcpTools(input, env);
      expect(manifest.tools.map((t) => [t.name, t.executor.url])).toEqual([['echo', undefined], ['search', upstream.url], ['b_search', other.url]]);
      expect(input).toEqual(before);
    } finally {
      await other.close();
    }
  });
});

describe('import errors say what to change', () => {
  const failure = (manifest: Manifest, environment: Record<string, string> = env) => importMcpTools(manifest, environment).then(() => 'imported', (error: Error) => error.message);

  it('a listed tool the upstream does not have', async () => {
    expect(await failure(withImports([{ tools: ['search', 'delete_all'] }]))).toBe(
      `mcp_imports[0] ("crm"): the server at ${upstream.url} has no tool "delete_all" (it has: "search", "create_contact", "admin_report"); fix "tools"`,
    );
  });

  it('rename or tiers naming a tool the import does not take', async () => {
    expect(await failure(withImports([{ tools: ['search'], tiers: { create_contact: 'read' } }]))).toBe(
      'mcp_imports[0] ("crm"): tiers names "create_contact", which this import does not take (it takes: "search"); use the upstream\'s names',
    );
    expect(await failure(withImports([{ rename: { serch: 'x' } }]))).toContain('rename names "serch"');
  });

  it('name collisions between imports, and with tools the import did not pin', async () => {
    expect(await failure(withImports([{ tools: ['search'] }, { server: 'again', tools: ['search'] }]))).toBe(
      'mcp_imports[1] ("again"): tool name "search" is also imported by mcp_imports[0] ("crm"); tell them apart with prefix or rename',
    );
    const handWritten = { name: 'search', description: 'ours', input_schema: { type: 'object' }, executor: { kind: 'http', url: 'https://x.example', secret: 'env:S' } };
    expect(await failure(withImports([{ tools: ['search'] }], [handWritten]))).toBe(
      'mcp_imports[0] ("crm"): tool name "search" is already used by $.tools[0], which this import did not pin; rename one of them (prefix or rename in the import)',
    );
  });

  it('a name toolgate cannot use', async () => {
    expect(await failure(withImports([{ tools: ['search'], rename: { search: 'find contact' } }]))).toContain('upstream tool "search" would be named "find contact", which is not a valid toolgate tool name');
  });

  it('an unreachable server, a refused token, a missing secret, something that is not MCP', async () => {
    const port = await closedPort();
    expect(await failure(withImports([{ url: `http://127.0.0.1:${port}/mcp` }]))).toBe(`mcp_imports[0] ("crm"): upstream MCP server at http://127.0.0.1:${port}/mcp is unavailable: ECONNREFUSED`);
    expect(await failure(withImports([{ url: upstream.secureUrl, headers: { Authorization: 'env:CRM_MCP_TOKEN' } }]), { CRM_MCP_TOKEN: 'Bearer nope' })).toBe(
      `mcp_imports[0] ("crm"): upstream MCP server at ${upstream.secureUrl} is unavailable: it refused the credentials (HTTP 401: {"error":"invalid_token"}); check the secret its headers name`,
    );
    expect(await failure(withImports([{ headers: { Authorization: 'env:CRM_MCP_TOKEN' } }]), {})).toContain('is unavailable: secret CRM_MCP_TOKEN is not set: set the environment variable CRM_MCP_TOKEN');
    expect(await failure(withImports([{ url: upstream.notMcpUrl }]))).toContain('is unavailable: it answered with something other than MCP (Unexpected content type: text/html)');
    const hanging = await importMcpTools(withImports([{ url: upstream.hangingUrl }]), env, { timeoutMs: 200 }).catch((error: Error) => error.message);
    expect(hanging).toBe(`mcp_imports[0] ("crm"): upstream MCP server at ${upstream.hangingUrl} is unavailable: it did not answer in time`);
  });
});

describe('the loader on mcp_imports', () => {
  const problems = (imports: unknown[]) => {
    const loaded = loadManifest({ ...baseManifest(), mcp_imports: imports }, loaderOptions());
    return loaded.ok ? [] : loaded.problems;
  };

  it('accepts an import whose rename and tiers name tools it cannot know yet', () => {
    expect(problems([{ server: 'crm', url: 'https://crm.example.com/mcp', tools: 'all', tiers: { refresh_token: 'read' }, rename: { get_secret: 'crm_secret' } }])).toEqual([]);
  });

  it('reports duplicate server names, bad URLs, inline secrets and missing fields', () => {
    expect(problems([
      { server: 'crm', url: 'https://crm.example.com/mcp', tools: 'all', headers: { Authorization: 'Bearer abc', 'X-Key': 'env:bad-name' } },
      { server: 'crm', url: 'ftp://crm.example.com', tools: ['search'] },
      { server: 'other', url: 'https://user:pw@crm.example.com/mcp', tools: [] },
    ])).toEqual(expect.arrayContaining([
      { path: '$.mcp_imports[0].headers["X-Key"]', message: 'is not a valid secret reference: write "env:NAME" with NAME made of letters, digits and _' },
      { path: '$.mcp_imports[0].headers.Authorization', message: expect.stringContaining('secret written inline; write "env:NAME"') },
      { path: '$.mcp_imports[1].server', message: 'duplicate server name "crm" (first used at $.mcp_imports[0]); give each import its own name' },
      { path: '$.mcp_imports[1].url', message: 'must match the pattern /^https?:///, got string "ftp://crm.example.com"' },
      { path: '$.mcp_imports[2].tools', message: 'must match exactly one of: "all" | an array' },
      { path: '$.mcp_imports[2].url', message: 'URL carries credentials inline; pass them as a secret "env:NAME" instead' },
    ]));
    expect(problems([{ server: 'crm', url: 'https://exa mple.com/mcp', tools: 'all' }])).toEqual([{ path: '$.mcp_imports[0].url', message: expect.stringContaining('is not a valid URL') }]);
    expect(problems([{ server: 'crm', url: 'https://crm.example.com/mcp' }])).toEqual([{ path: '$.mcp_imports[0].tools', message: 'is required (unless the import takes resources, resource_templates or prompts): say what to pin' }]);
  });
});
