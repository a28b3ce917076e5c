import { describe, expect, it } from 'vitest';
import { defineTool } from '../../lib/registry/definition.ts';
import { exportTools } from '../../lib/registry/formats/index.ts';
import { meetsStrictMode } from '../../lib/registry/formats/strict-schema.ts';
import { codingToolsFor } from '../../lib/tools/profiles.ts';
import { MemoryEnvironment } from '../helpers/memory-environment.ts';

const weather = defineTool({
  name: 'get_weather',
  description: 'Weather for a city',
  input_schema: { type: 'object', properties: { city: { type: 'string' }, unit: { type: ['string', 'null'], enum: ['c', 'f', null] } }, required: ['city', 'unit'], additionalProperties: false },
});
const loose = defineTool({ name: 'save', description: 'Saves', input_schema: { type: 'object', properties: { text: { type: 'string' } } } });
const coding = codingToolsFor('openai', new MemoryEnvironment()).map((t) => t.definition);

describe('Responses tools out', () => {
  it('function tools carry name, description, parameters and strict', () => {
    expect(exportTools([weather, loose], 'responses')).toEqual([
      { type: 'function', name: 'get_weather', description: 'Weather for a city', parameters: weather.input_schema, strict: true },
      { type: 'function', name: 'save', description: 'Saves', parameters: loose.input_schema, strict: false },
    ]);
  });

  it("the openai profile gets OpenAI's native apply_patch and shell in place of the function versions", () => {
    const names = (tools: unknown[]) => tools.map((t) => (t as { name?: string; type: string }).name ?? t);
    const native = exportTools(coding, 'responses', { profile: 'openai' });
    expect(names(native)).toEqual(['read_file', 'write_file', { type: 'apply_patch' }, { type: 'shell', environment: { type: 'local' } }, 'grep', 'glob']);
    expect(names(exportTools(coding, 'responses', { profile: 'openai', native: false }))).toEqual(['read_file', 'write_file', 'apply_patch', 'shell', 'grep', 'glob']);
    // Other profiles keep function tools unless native is asked for; it applies to the tools they have.
    expect(names(exportTools(coding, 'responses', { profile: 'anthropic' }))).toContain('shell');
    expect(names(exportTools(coding, 'responses', { profile: 'anthropic', native: true }))).toContainEqual({ type: 'shell', environment: { type: 'local' } });
    // Other formats are not affected by the switch.
    expect(exportTools(coding, 'openai', { native: true })).toEqual(exportTools(coding, 'openai'));
  });

  it("a tenant's own shell or apply_patch that takes other arguments stays a function tool (native calls could not fit it)", () => {
    const ownShell = defineTool({ name: 'shell', description: 'Runs a script by name', input_schema: { type: 'object', properties: { script: { type: 'string' } }, required: ['script'] } });
    const ownPatch = defineTool({ name: 'apply_patch', description: 'Applies a diff', input_schema: { type: 'object', properties: { diff: { type: 'string' } } } });
    expect(exportTools([ownShell, ownPatch], 'responses', { profile: 'openai' })).toEqual([
      { type: 'function', name: 'shell', description: 'Runs a script by name', parameters: ownShell.input_schema, strict: false },
      { type: 'function', name: 'apply_patch', description: 'Applies a diff', parameters: ownPatch.input_schema, strict: false },
    ]);
  });
});

describe('strict mode', () => {
  const object = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ type: 'object', properties, required: Object.keys(properties), additionalProperties: false, ...extra });

  it('accepts schemas inside OpenAI structured outputs rules', () => {
    const accepted = [
      object({}),
      object({ name: { type: 'string', pattern: '^[a-z]+$', format: 'email' }, age: { type: 'integer', minimum: 0, maximum: 150 } }),
      object({ tags: { type: 'array', items: { type: 'string', enum: ['a', 'b'] }, minItems: 1, maxItems: 3 } }),
      object({ when: { anyOf: [{ type: 'string', format: 'date' }, { type: 'null' }] } }),
      object({ tree: { $ref: '#/$defs/node' } }, { $defs: { node: object({ value: { type: 'number' }, children: { type: 'array', items: { $ref: '#/$defs/node' } } }) } }),
      object({ self: { anyOf: [{ $ref: '#' }, { type: 'null' }] } }),
      // 10 levels of objects, the most nesting strict mode takes.
      Array.from({ length: 9 }).reduce<Record<string, unknown>>((inner) => object({ next: inner }), object({})),
    ];
    for (const schema of accepted) expect(meetsStrictMode(schema), JSON.stringify(schema)).toBe(true);
  });

  it('refuses schemas outside them', () => {
    const refused = [
      undefined,
      true,
      { type: 'string' },
      { anyOf: [object({})] },
      { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] },
      { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: false },
      object({ a: { type: 'string' }, b: { type: 'string' } }, { required: ['a'] }),
      object({ a: { type: 'string', minLength: 1 } }),
      object({ a: { type: 'string', default: 'x' } }),
      object({ a: { type: 'string', format: 'uri' } }),
      object({ a: {} }),
      object({ a: { type: 'object' } }),
      object({ a: { allOf: [{ type: 'string' }] } }),
      object({ a: { $ref: '#/$defs/missing' } }),
      object({ a: { $ref: 'https://example.com/schema' } }),
      object({ a: { type: 'array', items: [{ type: 'string' }] } }),
      object({ a: { type: 'strin' } }),
      object({}, { $schema: 'http://json-schema.org/draft-07/schema#' }),
      object({ a: { type: 'string', enum: Array.from({ length: 1001 }, (_, i) => `v${i}`) } }),
      object(Object.fromEntries(Array.from({ length: 5001 }, (_, i) => [`p${i}`, { type: 'string' }]))),
      Array.from({ length: 11 }).reduce<Record<string, unknown>>((inner) => object({ next: inner }), object({})),
    ];
    for (const schema of refused) expect(meetsStrictMode(schema), JSON.stringify(schema)?.slice(0, 200)).toBe(false);
  });

  it('the built-in coding tools have optional arguments or minLength, so they go non-strict', () => {
    const tools = exportTools(coding, 'responses', { native: false }) as Array<{ name: string; strict: boolean }>;
    expect(tools.map((t) => [t.name, t.strict])).toEqual(coding.map((d) => [d.name, false]));
  });
});
