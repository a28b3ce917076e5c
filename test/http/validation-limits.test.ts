/**
 * The security review's validation attacks through the real app, on both engines (Node runs
 * ajv, Workers the eval-free engine): `POST /v1/dispatch` and `POST /v1/tools/:name/validate`
 * with arguments holding tens of thousands of problems answer `invalid_arguments` with a bounded
 * list (before: 12-22 MB answers, 6.7 MB of audit per call, or HTTP 500 / `error` on the
 * eval-free engine). Sizes and counts are asserted, never time (bench/validation-worst-case.ts).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createAjvValidator } from '../../lib/validation/ajv-engine.ts';
import { createCfworkerValidator } from '../../lib/validation/cfworker-engine.ts';
import type { SchemaValidator } from '../../lib/validation/validator.ts';
import { NULLABLE_TAGS_SCHEMA, STRING_TAGS_SCHEMA, unknownArguments, wrongTags } from '../fixtures/validation-attacks.ts';
import { testGateway } from '../helpers/gateway.ts';
import { validManifest } from '../helpers/manifests.ts';

/** Far above 20 problems' worth of text, far below the megabytes the attacks used to get back. */
const MAX_ANSWER_BYTES = 8_000;

interface CallResult {
  status: string;
  content: string;
  error: { code: string; message: string; details: { violations: Array<{ path: string; message: string }>; omitted?: number; incomplete?: boolean } };
}

interface Envelope {
  type: string;
  data: { error?: { message: string }; output?: string };
}

const manifest = () =>
  validManifest({
    tools: [
      { name: 'echo', executor: { kind: 'builtin' } },
      { name: 'tag_items', description: 'Tags items', executor: { kind: 'client' }, input_schema: NULLABLE_TAGS_SCHEMA },
      { name: 'string_items', description: 'Takes strings', executor: { kind: 'client' }, input_schema: STRING_TAGS_SCHEMA },
    ],
  });

const ENGINES: [string, () => SchemaValidator][] = [
  ['ajv', createAjvValidator],
  ['cfworker', createCfworkerValidator],
];

for (const [engine, make] of ENGINES) {
  describe(`${engine}: arguments with tens of thousands of problems`, () => {
    let gw: Awaited<ReturnType<typeof testGateway>>;

    beforeAll(async () => {
      gw = await testGateway([manifest()], { agent: { tenant: 'acme', scopes: ['audit:read'] } }, { validator: make() });
    });

    async function dispatch(thread: string, name: string, args: unknown): Promise<{ result: CallResult; bytes: number }> {
      const body = { thread_id: thread, calls: [{ call_id: 'c1', name, arguments: args }] };
      const response = await gw.request('/v1/dispatch', { key: 'agent', json: body });
      expect(response.status).toBe(200);
      const text = await response.text();
      return { result: (JSON.parse(text) as { results: CallResult[] }).results[0], bytes: text.length };
    }

    async function resultEnvelope(thread: string): Promise<Envelope> {
      const audit = (await (await gw.request(`/v1/audit?thread_id=${thread}`, { key: 'agent' })).json()) as { envelopes: Envelope[] };
      const result = audit.envelopes.find((e) => e.type === 'tool.call.result');
      if (!result) throw new Error('no result envelope');
      return result;
    }

    it('the built-in echo with 90,000 unknown arguments (979 KB): 20 problems, how many more, a small answer and audit', async () => {
      const { result, bytes } = await dispatch('echo-extra', 'echo', unknownArguments(90_000));
      expect(result.status).toBe('invalid_arguments');
      expect(result.error.details.violations).toHaveLength(20);
      expect(result.error.details.violations[1]).toEqual({ path: '/a0', keyword: 'additionalProperties', message: 'unexpected argument `a0` is not allowed (allowed: text)' });
      expect(result.error.details.omitted).toBe(89_981);
      expect(result.content).toContain('\n- … and 89981 more problems not listed\nFix the arguments and call the tool again.');
      expect(bytes).toBeLessThan(MAX_ANSWER_BYTES);
      // The message is what the result envelope stores (twice); the raw arguments, bounded by the body limit, are audited apart.
      const envelope = await resultEnvelope('echo-extra');
      expect(envelope.data.error?.message).toBe(result.content);
      expect(JSON.stringify(envelope).length).toBeLessThan(MAX_ANSWER_BYTES);
    });

    it("60,000 wrong items for Pydantic's list[str | None] (120 KB): invalid_arguments, bounded", async () => {
      const { result, bytes } = await dispatch('nullable', 'tag_items', wrongTags(60_000));
      expect(result.status).toBe('invalid_arguments');
      const { violations, omitted, incomplete } = result.error.details;
      expect(violations[0]).toEqual({ path: '/tags/0', keyword: 'anyOf', message: '`tags[0]` must match one of: a string | null' });
      // ajv collects all 60,000 and lists 20; the eval-free library overflows its stack collecting
      // them, so the first problem is found again with short-circuiting and the answer says so.
      if (engine === 'ajv') expect([violations.length, omitted, incomplete]).toEqual([20, 59_980, undefined]);
      else expect([violations.length, omitted, incomplete]).toEqual([1, undefined, true]);
      expect(bytes).toBeLessThan(MAX_ANSWER_BYTES);
      expect(JSON.stringify(await resultEnvelope('nullable')).length).toBeLessThan(MAX_ANSWER_BYTES);
    });

    it('POST /v1/tools/:name/validate with 100,000 wrong items: 200 and invalid_arguments, never 500', async () => {
      const response = await gw.request('/v1/tools/string_items/validate', { key: 'agent', json: { arguments: wrongTags(100_000) } });
      expect(response.status).toBe(200);
      const text = await response.text();
      expect(text.length).toBeLessThan(MAX_ANSWER_BYTES);
      const answer = JSON.parse(text) as { valid: boolean; error: CallResult['error'] };
      expect(answer.valid).toBe(false);
      expect(answer.error.code).toBe('invalid_arguments');
      expect(answer.error.details.violations[0]).toEqual({ path: '/tags/0', keyword: 'type', message: '`tags[0]` must be a string, got number 1' });
      if (engine === 'ajv') expect(answer.error.details.omitted).toBe(99_980);
      else expect(answer.error.message).toContain('\n- … and more not listed: the arguments have too many problems to collect them all\n');
    });

    it('the same through dispatch: invalid_arguments, not `error`', async () => {
      const { result, bytes } = await dispatch('strings', 'string_items', wrongTags(100_000));
      expect(result.status).toBe('invalid_arguments');
      expect(result.error.details.violations[0].message).toBe('`tags[0]` must be a string, got number 1');
      expect(bytes).toBeLessThan(MAX_ANSWER_BYTES);
    });

    it('a few problems are still all listed, nothing said about more', async () => {
      const { result } = await dispatch('few', 'tag_items', { tags: ['a', 1, null, 2] });
      expect(result.content).toBe(
        'Invalid arguments for tool `tag_items`:\n- `tags[1]` must match one of: a string | null\n- `tags[3]` must match one of: a string | null\nFix the arguments and call the tool again.',
      );
      expect(result.error.details).toEqual({
        violations: [
          { path: '/tags/1', keyword: 'anyOf', message: '`tags[1]` must match one of: a string | null' },
          { path: '/tags/3', keyword: 'anyOf', message: '`tags[3]` must match one of: a string | null' },
        ],
      });
    });
  });
}
