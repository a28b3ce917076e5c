import { describe, expect, it } from 'vitest';
import { loadManifest, parseManifestText } from '../../lib/registry/manifest/loader.ts';
import { createCfworkerValidator } from '../../lib/validation/cfworker-engine.ts';
import { baseManifest, loaderOptions } from '../helpers/manifests.ts';

const problemsOf = (value: unknown, options = loaderOptions()) => {
  const result = loadManifest(value, options);
  return result.ok ? [] : result.problems;
};

const httpTool = (extra: Record<string, unknown> = {}) => ({
  name: 'lookup',
  description: 'Looks a customer up.',
  input_schema: { type: 'object', properties: { id: { type: 'string' } } },
  executor: { kind: 'http', url: 'https://tools.example.com/lookup', secret: 'env:ACME_TOOL_SECRET' },
  ...extra,
});

describe('manifest loader', () => {
  it('accepts a valid manifest (both validator engines)', () => {
    expect(problemsOf(baseManifest({ tools: [{ name: 'echo', executor: { kind: 'builtin' } }, httpTool()] }))).toEqual([]);
    expect(problemsOf(baseManifest(), loaderOptions({ validator: createCfworkerValidator() }))).toEqual([]);
  });

  it('reports structural problems with JSON paths', () => {
    const manifest = { ...baseManifest(), tenant: 'Bad Tenant!', format: 'v0', policy: { write: 'maybe' } } as Record<string, unknown>;
    delete manifest.version;
    manifest.tools = [{ name: 'echo', tier: 'admin', executor: { kind: 'builtin' } }];
    expect(problemsOf(manifest)).toEqual(
      expect.arrayContaining([
        { path: '$.version', message: 'is required' },
        { path: '$.format', message: 'must be exactly "toolgate.manifest/v1", got "v0"' },
        { path: '$.tenant', message: expect.stringContaining('must match the pattern') },
        { path: '$.policy.write', message: 'must be one of "grant", "review", "confirm", "deny", got "maybe"' },
        { path: '$.tools[0].tier', message: 'must be one of "read", "write", "execute", got "admin"' },
      ]),
    );
  });

  it('reports duplicate tool names with both places', () => {
    const tools = [{ name: 'echo', executor: { kind: 'builtin' } }, httpTool(), httpTool()];
    expect(problemsOf(baseManifest({ tools }))).toEqual([{ path: '$.tools[2].name', message: 'duplicate tool name "lookup" (first defined at $.tools[1])' }]);
  });

  it('reports unknown executor kinds and unknown builtins', () => {
    const tools = [
      { name: 'a', description: 'x', input_schema: { type: 'object' }, executor: { kind: 'grpc' } },
      { name: 'b', executor: { kind: 'builtin', name: 'teleport' } },
    ];
    expect(problemsOf(baseManifest({ tools }))).toEqual([
      { path: '$.tools[0].executor.kind', message: 'unknown executor kind "grpc" (known: builtin, http, mcp, client)' },
      { path: '$.tools[1].executor.name', message: 'unknown builtin tool "teleport" (available: echo, sleep)' },
    ]);
  });

  it('reports bad input schemas at the exact keyword', () => {
    const tools = [
      httpTool({ input_schema: { type: 'object', properties: { id: { type: 'strin' }, n: { minLength: -1 } }, required: 'id' } }),
      httpTool({ name: 'p', input_schema: { type: 'array' } }),
      httpTool({ name: 'q', input_schema: { type: 'object', properties: { r: { $ref: '#/$defs/missing' } } } }),
    ];
    expect(problemsOf(baseManifest({ tools }))).toEqual([
      { path: '$.tools[0].input_schema.required', message: 'must be an array of property names' },
      { path: '$.tools[0].input_schema.properties.id.type', message: '"strin" is not a JSON Schema type (use one of string, number, integer, boolean, object, array, null)' },
      { path: '$.tools[0].input_schema.properties.n.minLength', message: 'must be a non-negative integer' },
      { path: '$.tools[1].input_schema.type', message: 'must be "object": tool arguments are a JSON object' },
      { path: '$.tools[2].input_schema.properties.r.$ref', message: 'cannot resolve "#/$defs/missing": tool schemas may only reference their own $defs' },
    ]);
  });

  it('checks each input schema by the draft its $schema declares; an unknown $schema is a problem at its path (both engines)', () => {
    const draft07 = { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', properties: { t: { type: 'array', items: [{ type: 'string' }] } } };
    const tools = [
      httpTool({ input_schema: draft07 }),
      httpTool({ name: 'p', input_schema: { $schema: 'https://example.com/custom-meta', type: 'object' } }),
      httpTool({ name: 'q', input_schema: { type: 'object', properties: { t: { items: [{ type: 'string' }] } } } }),
    ];
    for (const options of [loaderOptions(), loaderOptions({ validator: createCfworkerValidator() })]) {
      expect(problemsOf(baseManifest({ tools }), options)).toEqual([
        { path: '$.tools[1].input_schema.$schema', message: expect.stringMatching(/^unknown JSON Schema draft "https:\/\/example.com\/custom-meta": declare one of /) },
        { path: '$.tools[2].input_schema.properties.t.items', message: expect.stringContaining('for a tuple use prefixItems') },
      ]);
    }
  });

  it('refuses secrets written inline, in executors, headers and the execution environment', () => {
    const tools = [httpTool({ executor: { kind: 'http', url: 'https://user:pw@tools.example.com/x', secret: 'hunter2', headers: { Authorization: 'Bearer abc', 'X-Trace': 'on' } } })];
    const manifest = { ...baseManifest({ tools }), execution_environment: { url: 'https://exec.example.com', secret: 'plain' } };
    const problems = problemsOf(manifest);
    const inline = 'secret written inline; write "env:NAME" and set NAME in the runtime\'s environment (or as a Workers secret)';
    expect(problems).toEqual(
      expect.arrayContaining([
        { path: '$.tools[0].executor.secret', message: inline },
        { path: '$.tools[0].executor.headers.Authorization', message: inline },
        { path: '$.tools[0].executor.url', message: 'URL carries credentials inline; pass them as a secret "env:NAME" instead' },
        { path: '$.execution_environment.secret', message: 'must match the pattern /^env:[A-Za-z_][A-Za-z0-9_]*$/, got string "plain"' },
        { path: '$.execution_environment.secret', message: inline },
      ]),
    );
    expect(problems.some((p) => p.path.includes('X-Trace'))).toBe(false);
  });

  it('accepts execution_environment.network as a boolean only (both validator engines)', () => {
    const withNetwork = (network: unknown) => ({ ...baseManifest(), execution_environment: { url: 'https://exec.example.com', secret: 'env:ACME_EXEC_SECRET', network } });
    expect(problemsOf(withNetwork(true))).toEqual([]);
    expect(problemsOf(withNetwork(false), loaderOptions({ validator: createCfworkerValidator() }))).toEqual([]);
    for (const options of [loaderOptions(), loaderOptions({ validator: createCfworkerValidator() })]) {
      expect(problemsOf(withNetwork('yes'), options)).toEqual([expect.objectContaining({ path: '$.execution_environment.network' })]);
    }
  });

  it('requires url, secret, description and schema for http tools', () => {
    const tools = [{ name: 'bare', executor: { kind: 'http', timeout: 5 } }];
    expect(problemsOf(baseManifest({ tools }))).toEqual([
      { path: '$.tools[0].executor.url', message: 'must be the http(s) URL of the tool endpoint' },
      { path: '$.tools[0].executor.secret', message: 'is required: the HMAC signing secret, as "env:NAME"' },
      { path: '$.tools[0].executor.timeout', message: 'is not a field of an http executor (url, secret, headers, auth)' },
      { path: '$.tools[0].input_schema', message: 'is required for http tools' },
      { path: '$.tools[0].description', message: 'is required for http tools: the model reads it to decide when to call the tool' },
    ]);
  });

  it('reports JSON syntax errors at $', () => {
    const result = parseManifestText('{"format": ', loaderOptions());
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.problems[0]).toEqual({ path: '$', message: expect.stringMatching(/^not valid JSON: /) });
  });
});
