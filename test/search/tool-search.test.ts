import { beforeAll, describe, expect, it } from 'vitest';
import type { Manifest } from '../../lib/registry/manifest/manifest.ts';
import { searchIndexKey } from '../../lib/search/stored-index.ts';
import { testGateway } from '../helpers/gateway.ts';
import { validManifest } from '../helpers/manifests.ts';

/**
 * Tool search through every door (GET /v1/tools?q=, search_tools over /v1/dispatch and MCP, the
 * providers' deferred lists, MCP's paged and short tools/list), as a caller with few rights
 * would use it: it never sees a tool it may not call, every bad parameter is a typed 400, and
 * a cursor it makes up reaches nothing it could not list anyway.
 */
const echoTool = (name: string, description: string, extra: Record<string, unknown> = {}) => ({
  name,
  description,
  input_schema: { type: 'object', properties: { text: { type: 'string' }, repository: { type: 'string' } } },
  executor: { kind: 'builtin', name: 'echo' },
  ...extra,
});

const TOOLS = [
  { name: 'echo', executor: { kind: 'builtin' } },
  echoTool('create_issue', 'Create a new issue in a repository', { scopes: ['repo'] }),
  echoTool('list_issues', 'List the issues of a repository', { tags: ['tracker'] }),
  echoTool('send_invoice', 'Send an invoice to a customer', { tier: 'write', scopes: ['billing'] }),
  echoTool('delete_repository', 'Delete a repository for good', { tier: 'write' }),
  echoTool('archive_repository', 'Archive a repository', { tier: 'write' }),
  echoTool('wipe_disk', 'Wipe a disk of a repository server', { tier: 'execute' }),
];

const POLICY: Manifest['policy'] = {
  read: 'grant',
  write: 'grant',
  execute: 'deny',
  rules: [
    // Unconditional: no call of delete_repository can run, so nobody is shown it.
    { tool: 'delete_repository', action: 'deny' },
    // Conditional: some calls of archive_repository run, so it stays visible.
    { tool: 'archive_repository', arguments: { repository: 'prod-.*' }, action: 'deny' },
  ],
};

const acme = validManifest({ tenant: 'acme', policy: POLICY, tools: TOOLS, tool_search: { always_loaded: ['echo', 'create_issue'], page_size: 2 } });
// search_tools reviewed by a human: an approved call runs without its caller, so it must not answer as someone.
const strict = validManifest({ tenant: 'strict', policy: { ...POLICY, rules: [{ tool: 'search_tools', action: 'review' }] }, tools: TOOLS, tool_search: {} });
const lean = validManifest({ tenant: 'lean', policy: POLICY, tools: TOOLS, tool_search: { always_loaded: ['echo', 'create_issue'], mcp_list: 'always_loaded' } });

let gw: Awaited<ReturnType<typeof testGateway>>;
const logged: Array<[string, Record<string, unknown>]> = [];
const everLogged: Array<[string, Record<string, unknown>]> = [];

beforeAll(async () => {
  gw = await testGateway([acme, lean, strict], {
    'strict-agent': { tenant: 'strict', principal: 'agent', scopes: [] },
    'strict-approver': { tenant: 'strict', principal: 'approver', scopes: ['approvals:decide'] },
    full: { tenant: 'acme', scopes: ['repo', 'billing', 'admin'] },
    plain: { tenant: 'acme', scopes: [] },
    'lean-full': { tenant: 'lean', scopes: ['repo'] },
    'lean-plain': { tenant: 'lean', scopes: [] },
  }, { log: (event, fields) => logged.push([event, fields]) && everLogged.push([event, fields]) });
});

type Listed = { name?: string; type?: string; defer_loading?: boolean };
const get = async (path: string, key = 'full') => gw.request(path, { key });
const names = (tools: Listed[]) => tools.map((tool) => tool.name);
const HIDDEN_FROM_PLAIN = ['create_issue', 'send_invoice', 'delete_repository', 'wipe_disk'];

const MCP_HEADERS = { accept: 'application/json, text/event-stream', 'content-type': 'application/json' };
async function mcp(key: string, method: string, params?: Record<string, unknown>) {
  const response = await gw.request('/mcp', { key, method: 'POST', headers: MCP_HEADERS, json: { jsonrpc: '2.0', id: 1, method, ...(params ? { params } : {}) } });
  expect(response.status).toBe(200);
  return (await response.json()) as { result?: { tools?: Listed[]; nextCursor?: string; content?: Array<{ text: string }>; isError?: boolean }; error?: { code: number; message: string } };
}

describe('GET /v1/tools?q=', () => {
  it('answers the best matches first, in the asked format, at most limit', async () => {
    const body = await (await get('/v1/tools?q=open+a+new+issue&format=anthropic')).json();
    expect(body.query).toBe('open a new issue');
    expect(body.tools[0]).toEqual({ name: 'create_issue', description: 'Create a new issue in a repository', input_schema: expect.objectContaining({ type: 'object' }) });
    expect(names(body.tools)).toContain('list_issues');
    const limited = await (await get('/v1/tools?q=repository&limit=1')).json();
    expect(limited.tools).toHaveLength(1);
  });

  it('finds by argument names and tags too, keeps the tag filter, and answers an empty list when nothing matches', async () => {
    expect(names((await (await get('/v1/tools?q=text')).json()).tools)).toContain('echo');
    expect(names((await (await get('/v1/tools?q=tracker')).json()).tools)).toEqual(['list_issues']);
    expect(names((await (await get('/v1/tools?q=issue&tag=tracker')).json()).tools)).toEqual(['list_issues']);
    expect((await (await get('/v1/tools?q=zebra+unicorn')).json()).tools).toEqual([]);
  });

  it('shows a caller only the tools it may call: its scopes, and the policy that denies every call of a tool', async () => {
    const full = names((await (await get('/v1/tools?q=repository+issue+invoice+disk&limit=50')).json()).tools);
    expect(full).toEqual(expect.arrayContaining(['create_issue', 'list_issues', 'send_invoice', 'archive_repository']));
    expect(full).not.toContain('delete_repository');
    expect(full).not.toContain('wipe_disk');
    const plain = names((await (await get('/v1/tools?q=repository+issue+invoice+disk&limit=50', 'plain')).json()).tools);
    for (const hidden of HIDDEN_FROM_PLAIN) expect(plain).not.toContain(hidden);
    expect(plain).toEqual(expect.arrayContaining(['list_issues', 'archive_repository']));
    // limit counts visible tools: the hidden ones do not take places.
    expect(names((await (await get('/v1/tools?q=repository&limit=2', 'plain')).json()).tools)).toHaveLength(2);
  });

  it.each([
    ['/v1/tools?q=', /^q must say what to search for/],
    ['/v1/tools?q=%20%20', /^q must say what to search for/],
    [`/v1/tools?q=${'x'.repeat(501)}`, /^q must be at most 500 characters \(got 501\)/],
    ['/v1/tools?q=a&q=b', /^q is given 2 times; give it at most once$/],
    ['/v1/tools?q=issue&limit=0', /^limit must be a whole number from 1 to 50 \(got "0"\)$/],
    ['/v1/tools?q=issue&limit=51', /^limit must be a whole number from 1 to 50/],
    ['/v1/tools?q=issue&limit=-1', /^limit must be a whole number from 1 to 50/],
    ['/v1/tools?q=issue&limit=1.5', /^limit must be a whole number from 1 to 50/],
    [`/v1/tools?q=issue&limit=${'9'.repeat(400)}`, /^limit must be a whole number from 1 to 50 \(got "9{40}…"\)$/],
    ['/v1/tools?limit=5', /^limit applies to a search: give q/],
    ['/v1/tools?format=anthropic&defer=yes', /^defer must be 1 or 0/],
    ['/v1/tools?format=openai&defer=1', /^defer=1 exists for format=anthropic, responses/],
    ['/v1/tools?defer=1', /^defer=1 exists for format=anthropic, responses/],
    ['/v1/tools?format=anthropic&defer=1&q=issue', /^q and defer=1 ask for different lists/],
  ])('%s is a typed 400', async (path, message) => {
    const response = await get(path);
    expect(response.status).toBe(400);
    const body = await response.json();
    expect(body.error.code).toBe('invalid_request');
    expect(body.error.message).toMatch(message);
  });

  it('takes a hostile but well-formed query (500 characters of words, symbols and long runs) as words', async () => {
    const hostile = encodeURIComponent(`${'issue '.repeat(40)}${'é'.repeat(60)} ${'%$#'.repeat(30)}`.slice(0, 500));
    const response = await get(`/v1/tools?q=${hostile}&limit=50`, 'plain');
    expect(response.status).toBe(200);
    expect(names((await response.json()).tools)).toEqual(['list_issues']);
  });
});

describe('search_tools', () => {
  it('answers over /v1/dispatch in the request format, only tools the caller may call', async () => {
    const json = { format: 'anthropic', thread_id: 't1', content: [{ type: 'tool_use', id: 'toolu_1', name: 'search_tools', input: { query: 'issues of a repository, invoices, disks', limit: 20 } }] };
    const body = await (await gw.request('/v1/dispatch', { key: 'plain', json })).json();
    expect(body, JSON.stringify(body)).toHaveProperty('results');
    expect(body.results[0].status).toBe('ok');
    const answer = JSON.parse(body.results[0].content);
    expect(answer.format).toBe('anthropic');
    expect(answer.tools[0]).toEqual(expect.objectContaining({ name: 'list_issues', input_schema: expect.any(Object) }));
    for (const hidden of [...HIDDEN_FROM_PLAIN, 'search_tools']) expect(names(answer.tools)).not.toContain(hidden);
    const full = await (await gw.request('/v1/dispatch', { key: 'full', json: { ...json, thread_id: 't2' } })).json();
    expect(names(JSON.parse(full.results[0].content).tools)).toEqual(expect.arrayContaining(['create_issue', 'send_invoice']));
  });

  it('answers over MCP with MCP tool definitions, and refuses what its schema does not take', async () => {
    const found = await mcp('plain', 'tools/call', { name: 'search_tools', arguments: { query: 'create issue send invoice' } });
    const answer = JSON.parse(found.result!.content![0].text);
    expect(answer.format).toBe('mcp');
    for (const tool of answer.tools) expect(tool).toEqual(expect.objectContaining({ name: expect.any(String), inputSchema: expect.any(Object) }));
    for (const hidden of HIDDEN_FROM_PLAIN) expect(names(answer.tools)).not.toContain(hidden);
    const bad = await mcp('plain', 'tools/call', { name: 'search_tools', arguments: { query: 'x'.repeat(501), limit: 1000 } });
    expect(bad.result!.isError).toBe(true);
    expect(bad.result!.content![0].text).toMatch(/query|limit/);
  });
});

describe('search_tools approved by a human', () => {
  it("refuses to run without its caller (an approved call runs outside the caller's request) rather than show every tool", async () => {
    const json = { thread_id: 'th', calls: [{ call_id: 's1', name: 'search_tools', arguments: { query: 'invoice' } }] };
    const parked = (await (await gw.request('/v1/dispatch', { key: 'strict-agent', json })).json()).results[0];
    expect(parked.status).toBe('pending_approval');
    const decided = await gw.request(`/v1/approvals/${parked.error.details.approval_id}`, { key: 'strict-approver', json: { decision: 'approve' } });
    const { result } = await decided.json();
    expect(result.status).toBe('error');
    expect(result.content).toMatch(/search_tools runs only as a caller's own call: search again/);
    expect(result.content).not.toMatch(/send_invoice/);
  });
});

describe('deferred loading (defer=1)', () => {
  it('Anthropic: every callable tool, all but always_loaded deferred, plus the tool search tool', async () => {
    const body = await (await get('/v1/tools?format=anthropic&defer=1', 'plain')).json();
    const tools = body.tools as Listed[];
    expect(tools.at(-1)).toEqual({ type: 'tool_search_tool_bm25_20251119', name: 'tool_search_tool_bm25' });
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    expect(byName.get('echo')!.defer_loading).toBeUndefined();
    expect(byName.get('list_issues')!.defer_loading).toBe(true);
    expect(byName.get('archive_repository')!.defer_loading).toBe(true);
    // always_loaded names a tool this caller may not call: it is not sent at all.
    for (const hidden of [...HIDDEN_FROM_PLAIN, 'search_tools']) expect(byName.has(hidden)).toBe(false);
    const full = await (await get('/v1/tools?format=anthropic&defer=1')).json();
    expect((full.tools as Listed[]).find((tool) => tool.name === 'create_issue')!.defer_loading).toBeUndefined();
  });

  it('Responses: function tools deferred but always_loaded, plus tool_search', async () => {
    const tools = (await (await get('/v1/tools?format=responses&defer=1', 'plain')).json()).tools as Listed[];
    expect(tools.at(-1)).toEqual({ type: 'tool_search', execution: 'server' });
    expect(tools.filter((tool) => tool.type === 'function').map((tool) => [tool.name, tool.defer_loading ?? false])).toEqual([
      ['echo', false],
      ['list_issues', true],
      ['archive_repository', true],
    ]);
  });
});

describe('MCP tools/list', () => {
  it('pages: following nextCursor lists every tool the caller may call once (never one the policy denies whatever the call)', async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const { result } = await mcp('full', 'tools/list', cursor ? { cursor } : undefined);
      seen.push(...names(result!.tools!).map(String));
      cursor = result!.nextCursor;
      pages++;
    } while (cursor && pages < 20);
    expect(seen).toEqual(['echo', 'create_issue', 'list_issues', 'send_invoice', 'archive_repository', 'search_tools']);
    expect(pages).toBe(3);
  });

  it('lists to a key without scopes only what it may call, as GET /v1/tools does', async () => {
    const listed: string[] = [];
    let cursor: string | undefined;
    do {
      const { result } = await mcp('plain', 'tools/list', cursor ? { cursor } : undefined);
      listed.push(...names(result!.tools!).map(String));
      cursor = result!.nextCursor;
    } while (cursor && listed.length < 20);
    expect(listed).toEqual(['echo', 'list_issues', 'archive_repository', 'search_tools']);
    const plain = await (await get('/v1/tools', 'plain')).json();
    expect(names(plain.tools)).toEqual(listed);
    for (const hidden of HIDDEN_FROM_PLAIN) expect(listed).not.toContain(hidden);
  });

  it.each(['abc', '0', '-1', '01', '1e3', '2 ', '999999999', '8'])('refuses the made-up cursor %j as invalid params', async (cursor) => {
    const { error } = await mcp('full', 'tools/list', { cursor });
    expect(error).toEqual({ code: -32602, message: expect.stringMatching(/^Invalid cursor/) });
  });

  it('with mcp_list "always_loaded": only the always_loaded tools the caller may call, plus search_tools; a made-up cursor reaches nothing more', async () => {
    expect(names((await mcp('lean-full', 'tools/list')).result!.tools!)).toEqual(['echo', 'create_issue', 'search_tools']);
    expect(names((await mcp('lean-plain', 'tools/list')).result!.tools!)).toEqual(['echo', 'search_tools']);
    expect(names((await mcp('lean-plain', 'tools/list', { cursor: '1' })).result!.tools!)).toEqual(['search_tools']);
    const found = await mcp('lean-plain', 'tools/call', { name: 'search_tools', arguments: { query: 'list issues' } });
    expect(names(JSON.parse(found.result!.content![0].text).tools)[0]).toBe('list_issues');
  });
});

describe('the index is built at publish and stored with the version', () => {
  it('publishing stores it in parts under the version; the runtime serves searches from it without building one', async () => {
    const manifest = { ...acme, version: '2' };
    const published = await gw.request('/v1/admin/manifests', { key: 'full', json: manifest });
    expect(published.status).toBe(201);
    const head = await gw.store.get(searchIndexKey('acme', '2'));
    expect(head?.data).toEqual({ format: 'toolgate.search/v1', parts: 1, chars: expect.any(Number), sha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect((await gw.request('/v1/admin/manifests/2/activate', { key: 'full', method: 'POST' })).status).toBe(200);
    logged.length = 0;
    const body = await (await get('/v1/tools?q=invoice')).json();
    expect(body.version).toBe('2');
    expect(names(body.tools)).toEqual(['send_invoice']);
    expect(logged.filter(([event]) => event === 'search.index.built')).toEqual([]);
  });

  it('a seeded version (never published through the API) is indexed on its first search, and says so', async () => {
    await get('/v1/tools?q=issue', 'lean-full');
    expect(everLogged.filter(([event, fields]) => event === 'search.index.built' && fields.tenant === 'lean').map(([, fields]) => fields.reason)).toEqual(['no stored index']);
  });

  it('refuses always_loaded naming a tool the manifest does not have, at its path', async () => {
    const response = await gw.request('/v1/admin/manifests', { key: 'full', json: { ...acme, version: '3', tool_search: { always_loaded: ['echo', 'creat_issue'] } } });
    expect(response.status).toBe(400);
    const body = await response.json();
    expect(body.error.problems).toEqual([{ path: '$.tool_search.always_loaded[1]', message: expect.stringContaining('"creat_issue" is not in tools') }]);
  });
});
