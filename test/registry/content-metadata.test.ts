/**
 * Content parts keep MCP's annotations and `_meta` (issue 23): checked like the rest of a tool's
 * answer, without the keys reserved for toolgate and MCP, and bounded so a hostile tool cannot
 * swell a stored result.
 */
import { describe, expect, it } from 'vitest';
import { MAX_PARTS_METADATA_CHARS } from '../../lib/registry/content-meta.ts';
import { readToolResultBody } from '../../lib/registry/content-read.ts';
import { truncateTextParts } from '../../lib/tools/truncate.ts';

const read = (body: unknown) => readToolResultBody(body).output;

describe('annotations and _meta on content parts', () => {
  it('are kept as sent, reserved _meta keys dropped, on every kind of part', () => {
    const output = read({
      content: [
        { type: 'text', text: 'a', annotations: { audience: ['user', 'user', 'assistant'], priority: 0, lastModified: '2026-01-01T00:00:00Z', extra: 1 }, _meta: { 'x/y': 1, 'toolgate/status': 'ok' } },
        { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png', annotations: { priority: 1 } },
        { type: 'resource', resource: { uri: 'file:///a', text: 't' }, _meta: { 'io.modelcontextprotocol/only': true } },
      ],
      _meta: { 'a/b': [1], 'io.modelcontextprotocol/related-task': { taskId: 't' } },
    });
    expect(output.content).toEqual([
      { type: 'text', text: 'a', annotations: { audience: ['user', 'assistant'], priority: 0, lastModified: '2026-01-01T00:00:00Z' }, _meta: { 'x/y': 1 } },
      { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png', annotations: { priority: 1 } },
      { type: 'resource', resource: { uri: 'file:///a', text: 't' } },
    ]);
    expect(output.meta).toEqual({ 'a/b': [1] });
  });

  it('refuses annotations that are not MCP\'s shape, naming the field', () => {
    const part = (annotations: unknown) => () => read({ content: [{ type: 'text', text: 'a', annotations }] });
    expect(part({ priority: 2 })).toThrow('content[0].annotations.priority must be a number from 0 to 1');
    expect(part({ audience: ['everyone'] })).toThrow('content[0].annotations.audience must be a list of "user" and "assistant"');
    expect(part({ lastModified: 5 })).toThrow('content[0].annotations.lastModified must be an ISO 8601 time');
    expect(part('high')).toThrow('content[0].annotations must be an object');
    expect(() => read({ content: [{ type: 'text', text: 'a', _meta: [1] }] })).toThrow('content[0]._meta must be a JSON object');
    expect(() => read({ content: [], _meta: 'x' })).toThrow('_meta must be a JSON object');
    expect(() => read({ content: [{ type: 'resource_link', uri: 'u', name: 'n', icons: [{ src: 1 }] }] })).toThrow('content[0].icons[0].src must be a string');
  });

  it("a link's icons pass only as web or raster data URLs: one that could run script (javascript:, an SVG or HTML data URL) or reach a local file is dropped", () => {
    const hostile = ['javascript:alert(document.cookie)', ' JavaScript:alert(1)', 'data:image/svg+xml;base64,PHN2Zy8+', 'data:text/html,<script>alert(1)</script>', 'file:///etc/passwd'];
    const kept = ['https://crm.example/1.png', 'http://crm.example/2.png', 'data:image/png;base64,iVBORw0KGgo='];
    const link = (srcs: string[]) => read({ content: [{ type: 'resource_link', uri: 'crm://1', name: 'n', icons: srcs.map((src) => ({ src })) }] }).content[0] as { icons?: Array<{ src: string }> };
    expect(link([...hostile, ...kept]).icons?.map((icon) => icon.src)).toEqual(kept);
    expect(link(hostile)).not.toHaveProperty('icons');
  });

  it('a hostile tool cannot swell a result with metadata: past the per-result budget, parts lose their _meta and icons', () => {
    const big = { 'x/pad': 'p'.repeat(7 * 1024) };
    const icons = [{ src: `data:image/png;base64,${'A'.repeat(7 * 1024)}` }];
    const output = read({ content: Array.from({ length: 256 }, (_, i) => (i % 2 ? { type: 'text', text: String(i), _meta: big } : { type: 'resource_link', uri: `u${i}`, name: 'n', icons })) });
    const kept = output.content.filter((part) => part._meta !== undefined || (part.type === 'resource_link' && part.icons !== undefined));
    expect(kept.length).toBeLessThanOrEqual(2);
    expect(JSON.stringify(output.content.map((part) => [part._meta, part.type === 'resource_link' ? part.icons : undefined])).length).toBeLessThan(MAX_PARTS_METADATA_CHARS + 4096);
    expect(read({ content: [], _meta: { 'x/pad': 'p'.repeat(20 * 1024) } }).meta).toBeUndefined();
  });

  it('truncation keeps a part\'s annotations and _meta, a link cut to text included', () => {
    const cut = truncateTextParts(
      [
        { type: 'text', text: 'x'.repeat(100), annotations: { priority: 0.5 }, _meta: { 'a/b': 1 } },
        { type: 'resource_link', uri: 'crm://1', name: 'n'.repeat(100), annotations: { audience: ['user'] } },
      ],
      { max_chars: 40 },
    );
    expect(cut.truncated).toBe(true);
    expect(cut.parts.map((part) => [part.type, part.annotations, part._meta])).toEqual([
      ['text', { priority: 0.5 }, { 'a/b': 1 }],
      ['text', { audience: ['user'] }, undefined],
    ]);
  });
});
