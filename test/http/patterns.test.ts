/**
 * Patterns as attacks through the HTTP routes: a tenant admin publishing catastrophic patterns
 * is refused with their JSON paths; a manifest stored before the check (put in the store
 * directly) cannot stall the gateway: its calls come back with results, on both engines.
 */
import { describe, expect, it } from 'vitest';
import { createAjvValidator } from '../../lib/validation/ajv-engine.ts';
import { createCfworkerValidator } from '../../lib/validation/cfworker-engine.ts';
import type { SchemaValidator } from '../../lib/validation/validator.ts';
import { testGateway } from '../helpers/gateway.ts';
import { baseManifest } from '../helpers/manifests.ts';

const ATTACK = `${'a'.repeat(29)}!`;
const keys = { admin: { tenant: 'acme', principal: 'ops', scopes: ['admin'] }, agent: { tenant: 'acme' } };

const catastrophicSchema = {
  name: 'echo',
  executor: { kind: 'builtin' },
  input_schema: { type: 'object', properties: { text: { type: 'string', pattern: '^(a+)+$' } }, required: ['text'] },
};
const catastrophicKey = {
  name: 'shout',
  executor: { kind: 'builtin', name: 'echo' },
  input_schema: { type: 'object', properties: { text: { type: 'string' } }, patternProperties: { '^(a|aa)+$': { type: 'integer' } } },
};

describe('publishing catastrophic patterns', () => {
  it('answers 400 with the JSON path of a schema pattern, a patternProperties key and a rule pattern', async () => {
    const gw = await testGateway([], keys);
    const manifest = baseManifest({
      version: '2',
      tools: [catastrophicSchema, catastrophicKey],
      policy: { read: 'grant', rules: [{ tool: 'echo', arguments: { text: '(\\w+\\s?)*' }, action: 'deny' }] },
    });
    const response = await gw.request('/v1/admin/manifests', { key: 'admin', json: manifest });
    expect(response.status).toBe(400);
    const problems = (await response.json()).error.problems as Array<{ path: string; message: string }>;
    expect(problems.map((p) => p.path)).toEqual([
      '$.tools[0].input_schema.properties.text.pattern',
      '$.tools[1].input_schema.patternProperties["^(a|aa)+$"]',
      '$.policy.rules[0].arguments.text',
    ]);
    expect(problems[0].message).toMatch(/^"\^\(a\+\)\+\$" can backtrack catastrophically: the repetition a\+ inside the repetition \(a\+\)\+/);
    expect(problems[1].message).toMatch(/^"\^\(a\|aa\)\+\$" can backtrack catastrophically: the alternatives "a" and "aa"/);
    expect(problems[2].message).toMatch(/^"\(\\\\w\+\\\\s\?\)\*" can backtrack catastrophically: the repetition \\w\+ inside the repetition/);
    // Nothing was published.
    expect((await gw.request('/v1/admin/manifests/2/activate', { key: 'admin', method: 'POST' })).status).toBe(404);
  });

  it('refuses rule and schema patterns the linear-time matcher cannot run, saying what to write instead', async () => {
    const gw = await testGateway([], keys);
    const manifest = baseManifest({
      version: '2',
      tools: [{ name: 'echo', executor: { kind: 'builtin' }, input_schema: { type: 'object', properties: { text: { type: 'string', pattern: '^(?!admin)' } } } }],
      policy: { read: 'grant', rules: [{ tool: 'echo', arguments: { 'x-y': '(a)\\1' }, action: 'grant' }] },
    });
    const response = await gw.request('/v1/admin/manifests', { key: 'admin', json: manifest });
    expect(response.status).toBe(400);
    expect((await response.json()).error.problems).toEqual([
      { path: '$.tools[0].input_schema.properties.text.pattern', message: expect.stringMatching(/^"\^\(\?!admin\)" uses lookaround .* state the condition without it/) },
      { path: '$.policy.rules[0].arguments["x-y"]', message: expect.stringMatching(/^"\(a\)\\\\1" uses a backreference .* repeat the group's pattern instead/) },
    ]);
  });
});

const ENGINES: Array<[string, () => SchemaValidator]> = [
  ['ajv', createAjvValidator],
  ['cfworker', createCfworkerValidator],
];

for (const [engine, validator] of ENGINES) {
  describe(`${engine}: a manifest stored before the check`, () => {
    // Seeded manifests go to the store as they are, without the publish check: as if stored by an earlier version.
    const stored = baseManifest({
      tools: [
        catastrophicSchema,
        { name: 'say', executor: { kind: 'builtin', name: 'echo' } },
        { name: 'note', executor: { kind: 'builtin', name: 'echo' }, tier: 'execute' },
        { name: 'tell', executor: { kind: 'builtin', name: 'echo' } },
      ],
      policy: {
        read: 'grant',
        execute: 'deny',
        rules: [
          // JavaScript's RegExp takes 6-7 s on the 30-character attack; the test would time out first.
          { tool: 'say', arguments: { text: '(\\w+\\s?)*' }, action: 'deny', description: 'no plain words' },
          // A grant the matcher cannot run grants nothing; a deny it cannot run denies everything it names.
          { tool: 'note', arguments: { text: '(a)\\1' }, action: 'grant' },
          { tool: 'tell', arguments: { text: '(?!x)b' }, action: 'deny', description: 'lookaround deny' },
        ],
      },
    });

    const dispatch = async (gw: Awaited<ReturnType<typeof testGateway>>, name: string, text: string) => {
      const response = await gw.request('/v1/dispatch', { key: 'agent', json: { thread_id: 't', calls: [{ call_id: `${name}-${text.length}`, name, arguments: { text } }] } });
      expect(response.status).toBe(200);
      return (await response.json()).results[0] as { status: string; content: string };
    };

    it('refuses the tool whose schema is catastrophic: its calls answer an error, nothing stalls', async () => {
      // Validated by JavaScript's RegExp, the attack would take about 8 s (the test would time out first).
      const gw = await testGateway([stored], keys, { validator: validator() });
      const result = await dispatch(gw, 'echo', ATTACK);
      expect(result.status).toBe('error');
      expect(result.content).toMatch(/has an invalid input schema: properties\.text\.pattern: "\^\(a\+\)\+\$" can backtrack catastrophically/);
    });

    it('evaluates a catastrophic rule pattern in linear time, with its meaning kept', async () => {
      const gw = await testGateway([stored], keys, { validator: validator() });
      // Whole value "(\w+\s?)*": the attack does not match it (so the deny does not apply), plain words do.
      expect(await dispatch(gw, 'say', ATTACK)).toMatchObject({ status: 'ok', content: ATTACK });
      expect(await dispatch(gw, 'say', 'hello world')).toMatchObject({ status: 'denied', content: expect.stringContaining('no plain words') });
    });

    it('applies rule patterns the matcher cannot run in the direction that grants nothing', async () => {
      const gw = await testGateway([stored], keys, { validator: validator() });
      // JavaScript would have granted "aa" by the backreference rule; now the tier's deny applies.
      expect(await dispatch(gw, 'note', 'aa')).toMatchObject({ status: 'denied' });
      // The lookaround deny rule now denies every value of "text" for "tell".
      expect(await dispatch(gw, 'tell', 'hello')).toMatchObject({ status: 'denied', content: expect.stringContaining('lookaround deny') });
    });
  });
}
