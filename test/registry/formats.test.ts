import { describe, expect, it } from 'vitest';
import { defineTool } from '../../lib/registry/definition.ts';
import { exportTools, GeminiSchemaError } from '../../lib/registry/formats/index.ts';

const weather = defineTool({
  name: 'get_weather',
  description: 'Weather for a city',
  input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false },
  tier: 'read',
});
const deploy = defineTool({ name: 'deploy', description: 'Deploys', tier: 'execute', idempotency: 'none' });
const save = defineTool({ name: 'save', description: 'Saves', tier: 'write' });

describe('tool definitions out', () => {
  it('OpenAI: chat-completions function tools', () => {
    expect(exportTools([weather], 'openai')).toEqual([
      { type: 'function', function: { name: 'get_weather', description: 'Weather for a city', parameters: weather.input_schema } },
    ]);
  });

  it('Anthropic: name, description, input_schema', () => {
    expect(exportTools([weather], 'anthropic')).toEqual([{ name: 'get_weather', description: 'Weather for a city', input_schema: weather.input_schema }]);
  });

  it('MCP: inputSchema and annotations from the tier and idempotency', () => {
    expect(exportTools([weather, save, deploy], 'mcp')).toEqual([
      { name: 'get_weather', description: 'Weather for a city', inputSchema: weather.input_schema, annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true } },
      { name: 'save', description: 'Saves', inputSchema: save.input_schema, annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true } },
      { name: 'deploy', description: 'Deploys', inputSchema: deploy.input_schema, annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false } },
    ]);
  });

  it('Gemini: one functionDeclarations entry; keywords it lacks are converted or dropped', () => {
    const rich = defineTool({
      name: 'search',
      description: 'Searches',
      input_schema: {
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        type: 'object',
        additionalProperties: false,
        properties: {
          q: { type: 'string', minLength: 1, format: 'hostname' },
          when: { type: 'string', format: 'date-time' },
          limit: { type: ['integer', 'null'], exclusiveMinimum: 0 },
          mode: { const: 'fast' },
          level: { enum: [1, 2, 3], description: 'Depth.' },
          filter: { oneOf: [{ type: 'string' }, { $ref: '#/$defs/range' }] },
        },
        required: ['q'],
        $defs: { range: { type: 'object', properties: { from: { type: 'number' } } } },
      },
    });
    expect(exportTools([rich], 'gemini')).toEqual([
      {
        functionDeclarations: [
          {
            name: 'search',
            description: 'Searches',
            parameters: {
              type: 'object',
              required: ['q'],
              properties: {
                q: { type: 'string', minLength: 1 },
                when: { type: 'string', format: 'date-time' },
                limit: { type: 'integer', nullable: true },
                mode: { type: 'string', enum: ['fast'] },
                level: { description: 'Depth. Allowed values: 1, 2, 3.' },
                filter: { anyOf: [{ type: 'string' }, { type: 'object', properties: { from: { type: 'number' } } }] },
              },
            },
          },
        ],
      },
    ]);
  });

  it('Gemini: shapes it cannot express are refused with a clear error', () => {
    const recursive = defineTool({ name: 'tree', input_schema: { type: 'object', properties: { node: { $ref: '#/$defs/node' } }, $defs: { node: { type: 'object', properties: { child: { $ref: '#/$defs/node' } } } } } });
    expect(() => exportTools([recursive], 'gemini')).toThrow(GeminiSchemaError);
    expect(() => exportTools([recursive], 'gemini')).toThrow('tool "tree": input_schema.properties.node.properties.child uses a recursive $ref "#/$defs/node", which Gemini function declarations cannot express; simplify the schema or use another profile');
    const allOf = defineTool({ name: 'mix', input_schema: { type: 'object', allOf: [{ required: ['a'] }] } });
    expect(() => exportTools([allOf], 'gemini')).toThrow('tool "mix": input_schema.allOf uses "allOf", which Gemini function declarations cannot express; simplify the schema or use another profile');
  });
});
