/**
 * Pinned upstream resources, resource templates and prompts in a manifest: what publishing
 * checks (unique keys, templates toolgate can match, sources that reach their upstream as an
 * mcp executor does, inside the tenant's secret grants and the gateway's egress), and the URI
 * template matcher reads are found with.
 */
import { describe, expect, it } from 'vitest';
import { SecretGrants } from '../../lib/crypto/secret-grants.ts';
import { EgressPolicy } from '../../lib/egress/policy.ts';
import type { Manifest } from '../../lib/registry/manifest/manifest.ts';
import { loadManifest } from '../../lib/registry/manifest/loader.ts';
import { unpinnedImports } from '../../lib/registry/mcp-upstream/import-check.ts';
import { featurePinsFor } from '../../lib/registry/mcp-upstream/import-features.ts';
import type { McpImport } from '../../lib/registry/manifest/manifest.ts';
import type { UpstreamSurvey } from '../../lib/registry/mcp-upstream/survey.ts';
import { uriTemplateMatcher } from '../../lib/registry/mcp-upstream/uri-template.ts';
import { baseManifest, loaderOptions } from '../helpers/manifests.ts';

const SOURCE = { kind: 'mcp', server: 'docs', url: 'https://docs.example.com/mcp', protocol: '2025-11-25' };

function problems(sections: Record<string, unknown>, confinement = {}) {
  const result = loadManifest({ ...baseManifest(), ...sections }, loaderOptions({ confinement }));
  return result.ok ? [] : result.problems;
}

describe('importing what an upstream lists', () => {
  it('pins only icons a client may show (http(s), raster data: URLs): a hostile upstream\'s javascript:, SVG or file icons are left out', () => {
    const icons = [{ src: 'javascript:alert(1)' }, { src: 'data:image/svg+xml;base64,PHN2Zy8+' }, { src: 'file:///etc/passwd' }, { src: 'https://docs.example.com/i.png' }];
    const survey = { protocol: '2025-11-25', tools: [], callsAsTasks: false, completions: false, resources: [{ uri: 'docs://readme', name: 'readme', icons }, { uri: 'docs://bad', name: 'bad', icons: icons.slice(0, 3) }], resourceTemplates: [], prompts: [{ name: 'greet', icons }] } as unknown as UpstreamSurvey;
    const spec = { server: 'docs', url: 'https://docs.example.com/mcp', resources: 'all', prompts: 'all' } as McpImport;
    const pins = featurePinsFor(spec, survey, 'docs');
    expect(pins.resources.map((r) => r.icons)).toEqual([[{ src: 'https://docs.example.com/i.png' }], undefined]);
    expect(pins.prompts[0]!.icons).toEqual([{ src: 'https://docs.example.com/i.png' }]);
  });
});

describe('publishing pinned resources, templates and prompts', () => {
  it('accepts what an import pins', () => {
    expect(problems({
      resources: [{ uri: 'docs://readme', name: 'readme', title: 'Read me', mime_type: 'text/markdown', size: 12, annotations: { priority: 1 }, icons: [{ src: 'https://docs.example.com/i.png' }], scopes: ['docs'], tier: 'read', timeout_ms: 5000, source: SOURCE }],
      resource_templates: [{ uri_template: 'docs://pages/{page}{?lang}', name: 'page', source: { ...SOURCE, completions: true } }],
      prompts: [{ name: 'docs.greet', arguments: [{ name: 'name', required: true }], source: { ...SOURCE, prompt: 'greet' } }],
    })).toEqual([]);
  });

  it('refuses a key used twice, a template toolgate cannot match, a prompt argument named twice, a prompt without its upstream name', () => {
    expect(problems({
      resources: [{ uri: 'docs://a', name: 'a', source: SOURCE }, { uri: 'docs://a', name: 'b', source: SOURCE }],
      resource_templates: [{ uri_template: 'docs://{unclosed', name: 't', source: SOURCE }, { uri_template: 'docs://{=x}', name: 'u', source: SOURCE }],
      prompts: [{ name: 'p', arguments: [{ name: 'x' }, { name: 'x' }], source: { ...SOURCE, prompt: 'p' } }, { name: 'q', source: SOURCE }],
    })).toEqual(expect.arrayContaining([
      { path: '$.resources[1].uri', message: 'duplicate uri "docs://a" (first at $.resources[0]): each must be unique; tell imports apart (prompt_prefix) or leave one out' },
      { path: '$.resource_templates[0].uri_template', message: 'is not a URI template toolgate can match (RFC 6570): it has a { that is never closed' },
      { path: '$.resource_templates[1].uri_template', message: 'is not a URI template toolgate can match (RFC 6570): its expression {=x} names "=x", which is not a variable name' },
      { path: '$.prompts[0].arguments[1].name', message: 'duplicate argument name "x"' },
      { path: '$.prompts[1].source.prompt', message: "is required: the prompt's name on the upstream" },
    ]));
  });

  it('a source is checked as an mcp executor is: its URL, inline secrets, secret references, its revision, no unknown fields', () => {
    expect(problems({ resources: [{ uri: 'docs://a', name: 'a', source: { ...SOURCE, url: 'https://user:pw@docs.example.com/mcp', headers: { Authorization: 'Bearer inline', 'X-Key': 'env:bad-name' }, protocol: '1999-01-01', extra: 1 } }] })).toEqual(expect.arrayContaining([
      { path: '$.resources[0].source.url', message: 'URL carries credentials inline; pass them as a secret "env:NAME" instead' },
      { path: '$.resources[0].source.headers.Authorization', message: expect.stringContaining('secret written inline') },
      { path: '$.resources[0].source.headers["X-Key"]', message: expect.stringContaining('is not a valid secret reference') },
      { path: '$.resources[0].source.protocol', message: expect.stringContaining('must be an MCP protocol revision toolgate speaks') },
      { path: '$.resources[0].source.extra', message: expect.stringContaining('is not allowed here') },
    ]));
  });

  it('a source stays inside the tenant\'s secret grants and the gateway\'s egress', () => {
    const confinement = { secretGrants: SecretGrants.parse('acme:DOCS_TOKEN'), egress: new EgressPolicy() };
    const sections = { prompts: [{ name: 'p', source: { ...SOURCE, url: 'http://169.254.169.254/mcp', headers: { Authorization: 'env:OTHER_TENANTS_TOKEN' }, prompt: 'p' } }] };
    expect(problems(sections, confinement)).toEqual(expect.arrayContaining([
      { path: '$.prompts[0].source.headers.Authorization', message: expect.stringContaining('OTHER_TENANTS_TOKEN') },
      { path: '$.prompts[0].source.url', message: expect.stringContaining('169.254.169.254') },
    ]));
  });

  it('an import that pinned only resources or prompts counts as pinned', () => {
    const manifest = { ...baseManifest(), mcp_imports: [{ server: 'docs', url: SOURCE.url, prompts: 'all' }], prompts: [{ name: 'p', source: { ...SOURCE, prompt: 'p' } }] } as Manifest;
    expect(unpinnedImports(manifest)).toEqual([]);
    expect(unpinnedImports({ ...manifest, prompts: [] })).toEqual(['docs']);
  });
});

describe('URI templates (RFC 6570), matched in linear time', () => {
  const matches = (template: string, uri: string) => {
    const matcher = uriTemplateMatcher(template);
    if (!matcher.ok) throw new Error(matcher.problem);
    return matcher.matches(uri);
  };

  it('a simple expression stands for one path segment; literal text must match as written', () => {
    expect(matches('demo://resource/dynamic/text/{resourceId}', 'demo://resource/dynamic/text/7')).toBe(true);
    expect(matches('demo://resource/dynamic/text/{resourceId}', 'demo://resource/dynamic/text/')).toBe(false);
    expect(matches('demo://resource/dynamic/text/{resourceId}', 'demo://resource/dynamic/text/7/more')).toBe(false);
    expect(matches('demo://resource/dynamic/text/{resourceId}', 'demo://resource/dynamic/blob/7')).toBe(false);
    expect(matches('test://template/{id}/data', 'test://template/42/data')).toBe(true);
    // Regular-expression characters in the literal text are literal.
    expect(matches('docs://a.b/{x}', 'docs://aXb/1')).toBe(false);
  });

  it('reserved, fragment and query expressions', () => {
    expect(matches('file:///{+path}', 'file:///usr/share/doc')).toBe(true);
    expect(matches('https://x.example/search{?q,lang}', 'https://x.example/search?q=tides&lang=en')).toBe(true);
    expect(matches('https://x.example/search{?q,lang}', 'https://x.example/search')).toBe(true);
    expect(matches('https://x.example/page{#section}', 'https://x.example/page#top')).toBe(true);
  });

  it('a long hostile URI against a template with many expressions is answered (no backtracking)', () => {
    const template = `x://${'{a}-'.repeat(20)}{b}`;
    expect(matches(template, `x://${'-'.repeat(5000)}/`)).toBe(false);
    expect(matches(template, `x://${'-'.repeat(5000)}`)).toBe(true);
  });
});
