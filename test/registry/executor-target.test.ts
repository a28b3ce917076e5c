import { describe, expect, it } from 'vitest';
import { boundDefinition, definitionHash } from '../../lib/registry/definition-binding.ts';
import { executorTarget, maskedUrl } from '../../lib/registry/executor-target.ts';
import { baseManifest } from '../helpers/manifests.ts';

const inGateway = (name: string) => name === 'echo';

describe('maskedUrl: what a reviewer sees of an endpoint', () => {
  it.each([
    ['https://tools.example.com/tv', 'https://tools.example.com/tv'],
    ['https://tools.example.com:8443/a/b?api_key=SECRET&mode=x', 'https://tools.example.com:8443/a/b?api_key=••••••&mode=••••••'],
    ['https://tok3n@tools.example.com/tv', 'https://••••••@tools.example.com/tv'],
    ['https://user:pa55@tools.example.com/tv', 'https://••••••@tools.example.com/tv'],
    ['https://tools.example.com/tv#access_token=SECRET', 'https://tools.example.com/tv#••••••'],
    ['https://tools.example.com/tv?SECRET', 'https://tools.example.com/tv?••••••'],
    ['https://tools.example.com/tv?a=1&SECRET&b=', 'https://tools.example.com/tv?a=••••••&••••••&b=••••••'],
    ['not a url SECRET', '(not a valid URL)'],
  ])('%s → %s', (raw, shown) => {
    expect(maskedUrl(raw)).toBe(shown);
  });
});

describe('executorTarget', () => {
  const manifest = baseManifest({
    execution_environment: { url: 'https://exec.example.com/rpc?sig=SECRET', secret: 'env:EXEC_SECRET' },
    tools: [
      { name: 'tv', description: 'x', input_schema: { type: 'object' }, executor: { kind: 'http', url: 'https://h.example.com/tv?key=SECRET', secret: 'env:HOOK', headers: { Authorization: 'env:TOKEN', 'X-Team': 'blue' } } },
      { name: 'search', description: 'x', input_schema: { type: 'object' }, executor: { kind: 'mcp', url: 'https://mcp.example.com/mcp', tool: 'docs_search', server: 'docs', headers: { Authorization: 'env:MCP_TOKEN' } } },
      { name: 'say', executor: { kind: 'builtin', name: 'echo' } },
      { name: 'browser', description: 'x', input_schema: { type: 'object' }, executor: { kind: 'client' } },
    ],
  });
  const target = (name: string) => executorTarget(boundDefinition(manifest, name), inGateway);

  it('http: method, masked URL and header names, never values', () => {
    expect(target('tv')).toEqual({ kind: 'http', url: 'https://h.example.com/tv?key=••••••', summary: 'POST https://h.example.com/tv?key=•••••• (headers: Authorization, X-Team)' });
  });

  it('mcp: upstream tool, server and endpoint', () => {
    expect(target('search')).toEqual({ kind: 'mcp', url: 'https://mcp.example.com/mcp', summary: 'MCP tool "docs_search" on server "docs" at https://mcp.example.com/mcp (headers: Authorization)' });
  });

  it('built-ins: in the gateway, or a coding tool on the exec-server (listed in the manifest or not)', () => {
    expect(target('say')).toEqual({ kind: 'builtin', summary: 'built-in "echo", run inside the gateway' });
    expect(target('shell')).toEqual({ kind: 'builtin', url: 'https://exec.example.com/rpc?sig=••••••', summary: 'built-in "shell" on the exec-server https://exec.example.com/rpc?sig=•••••• (profile openai, no network)' });
  });

  it('client tools say the client runs them', () => {
    expect(target('browser')).toMatchObject({ kind: 'client' });
  });

  it('no secret reaches a summary', () => {
    for (const name of ['tv', 'search', 'say', 'shell', 'browser']) expect(JSON.stringify(target(name))).not.toMatch(/SECRET|blue/);
  });
});

describe('definitionHash', () => {
  it('changes with anything that changes what runs, and only then', async () => {
    const hash = async (overrides: Parameters<typeof baseManifest>[0]) => definitionHash(boundDefinition(baseManifest(overrides), 'echo'));
    const base = await hash({});
    expect(await hash({ version: '2', description: 'another version, same tool' })).toBe(base);
    expect(await hash({ tools: [{ name: 'echo', executor: { kind: 'builtin' }, tier: 'write' }] })).not.toBe(base);
    expect(await hash({ execution_environment: { url: 'https://exec.example.com', secret: 'env:S' } })).not.toBe(base);
    expect(await hash({ profile: 'anthropic' })).not.toBe(base);
  });
});
