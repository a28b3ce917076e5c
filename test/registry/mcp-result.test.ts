import { describe, expect, it } from 'vitest';
import { mcpResultText } from '../../lib/registry/executors/mcp-result.ts';
import { loadManifest } from '../../lib/registry/manifest/loader.ts';
import { baseManifest, loaderOptions } from '../helpers/manifests.ts';

describe('an upstream result as text', () => {
  it('joins text blocks with newlines and leaves structured content out when there is text', () => {
    expect(mcpResultText({ content: [{ type: 'text', text: 'one' }, { type: 'text', text: 'two' }], structuredContent: { n: 2 } })).toBe('one\ntwo');
  });

  it('uses structured content as JSON when no block is text', () => {
    expect(mcpResultText({ content: [], structuredContent: { id: 'c-1' } })).toBe('{"id":"c-1"}');
    expect(mcpResultText({ content: [{ type: 'image', mimeType: 'image/png', data: 'AAAA' }], structuredContent: { id: 1 } })).toBe('[image/png image, 3 bytes base64]\n{"id":1}');
    expect(mcpResultText({ content: [] })).toBe('');
  });

  it('turns binary content into short placeholders and resources into their URI', () => {
    expect(
      mcpResultText({
        content: [
          { type: 'image', mimeType: 'image/png', data: 'iVBORw0KGgo=' },
          { type: 'audio', mimeType: 'audio/wav', data: 'UklGRg==' },
          { type: 'resource_link', uri: 'https://crm.example.com/c/1', name: 'contact' },
          { type: 'resource', resource: { uri: 'file:///notes.txt', text: 'the notes' } },
          { type: 'resource', resource: { uri: 'file:///a.pdf', mimeType: 'application/pdf', blob: 'JVBERi0=' } },
        ],
      }),
    ).toBe(
      '[image/png image, 8 bytes base64]\n[audio/wav audio, 4 bytes base64]\n[resource https://crm.example.com/c/1]\n[resource file:///notes.txt]\nthe notes\n[resource file:///a.pdf (application/pdf), 5 bytes base64]',
    );
  });
});

describe('executor kinds mcp and client in a manifest', () => {
  const problemsOf = (executor: Record<string, unknown>, extra: Record<string, unknown> = { description: 'd', input_schema: { type: 'object' } }) => {
    const loaded = loadManifest(baseManifest({ tools: [{ name: 't', ...extra, executor }] }), loaderOptions());
    return loaded.ok ? [] : loaded.problems;
  };

  it('accepts a pinned mcp tool with env: secrets and plain headers', () => {
    expect(problemsOf({ kind: 'mcp', url: 'https://crm.example.com/mcp', tool: 'search', headers: { Authorization: 'env:CRM_MCP_TOKEN', 'X-Tenant': 'acme' }, server: 'crm' })).toEqual([]);
  });

  it('reports a bad url, a missing tool, inline secrets, unknown fields and a missing definition', () => {
    expect(problemsOf({ kind: 'mcp', url: 'crm.example.com', headers: { Authorization: 'Bearer abc', 'X-Api': 'env:not valid' }, retries: 2 }, {})).toEqual([
      { path: '$.tools[0].executor.url', message: 'must be the http(s) URL of the upstream MCP server (its Streamable HTTP endpoint)' },
      { path: '$.tools[0].executor.tool', message: "is required: the tool's name on the upstream MCP server" },
      { path: '$.tools[0].executor.headers["X-Api"]', message: 'is not a valid secret reference: write "env:NAME" with NAME made of letters, digits and _' },
      { path: '$.tools[0].executor.retries', message: 'is not a field of an mcp executor (url, tool, headers, server, protocol, client_capabilities, task_support, auth)' },
      { path: '$.tools[0].executor.headers.Authorization', message: 'secret written inline; write "env:NAME" and set NAME in the runtime\'s environment (or as a Workers secret)' },
      { path: '$.tools[0].input_schema', message: 'is required for mcp tools' },
      { path: '$.tools[0].description', message: 'is required for mcp tools: the model reads it to decide when to call the tool' },
    ]);
  });

  it('a client tool has only its kind, and a definition', () => {
    expect(problemsOf({ kind: 'client' })).toEqual([]);
    expect(problemsOf({ kind: 'client', url: 'https://x.example' }, {})).toEqual([
      { path: '$.tools[0].executor.url', message: 'is not a field of a client executor (it has only "kind": the client runs the call)' },
      { path: '$.tools[0].input_schema', message: 'is required for client tools' },
      { path: '$.tools[0].description', message: 'is required for client tools: the model reads it to decide when to call the tool' },
    ]);
  });
});
