import type { JsonSchema } from '../lib/registry/json.ts';
import { createAjvValidator } from '../lib/validation/ajv-engine.ts';
import { createCfworkerValidator } from '../lib/validation/cfworker-engine.ts';
import type { CompiledSchema, SchemaValidator } from '../lib/validation/validator.ts';
import type { BenchModule, Figures } from './harness.ts';
import { round } from './harness.ts';
import { distribution, meanOfBatchUs, median, timeEachSync } from './stats.ts';

const WARMUP = 20_000;
const ITERATIONS = 100_000;

/** A realistic tool schema: a GitHub-style issue search with a nested sort, an array, enums and a pattern. */
export const SEARCH_ISSUES_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    query: { type: 'string', minLength: 1, maxLength: 256, description: 'Free-text search.' },
    repo: { type: 'string', pattern: '^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$', description: 'owner/name' },
    state: { enum: ['open', 'closed', 'all'] },
    labels: { type: 'array', items: { type: 'string', minLength: 1 }, maxItems: 10, uniqueItems: true },
    limit: { type: 'integer', minimum: 1, maximum: 100 },
    include_body: { type: 'boolean' },
    sort: {
      type: 'object',
      properties: { field: { enum: ['created', 'updated', 'comments'] }, direction: { enum: ['asc', 'desc'] } },
      required: ['field'],
      additionalProperties: false,
    },
    assignee: { type: 'string', pattern: '^[A-Za-z0-9-]{1,39}$' },
  },
  required: ['query', 'repo'],
  additionalProperties: false,
};

const VALID = {
  query: 'timeout when dispatching',
  repo: 'acme/toolgate',
  state: 'open',
  labels: ['bug', 'dispatch'],
  limit: 20,
  include_body: false,
  sort: { field: 'updated', direction: 'desc' },
  assignee: 'octo-cat',
};

/** Five violations at once (pattern, enum, minimum, nested enum, unknown property): the costly message path. */
const INVALID = {
  query: 'timeout when dispatching',
  repo: 'not a repo',
  state: 'pending',
  labels: ['bug'],
  limit: 0,
  sort: { field: 'stars' },
  page: 2,
};

function measureInput(prefix: string, compiled: CompiledSchema, input: unknown, expectValid: boolean): Figures {
  const outcome = compiled(input);
  if (outcome.valid !== expectValid) throw new Error(`${prefix}: expected valid=${expectValid}, got ${JSON.stringify(outcome)}`);
  let sink = 0;
  const keep = (value: unknown) => {
    if ((value as { valid: boolean }).valid) sink++;
  };
  const samples = timeEachSync(ITERATIONS, WARMUP, () => compiled(input), keep);
  // The median of five tight loops: one burst of other load on the machine cannot skew the mean.
  const batches = Array.from({ length: 5 }, () => meanOfBatchUs(ITERATIONS / 5, () => compiled(input), keep));
  const meanUs = median(batches);
  if (sink < 0) throw new Error('unreachable');
  const d = distribution(samples);
  // mean from the tight loops (no timer reads); p50/p99 from per-call timings (include ~0.05 µs of timer).
  return { [`${prefix}_mean_us`]: round(meanUs), [`${prefix}_p50_us`]: d.p50, [`${prefix}_p99_us`]: d.p99 };
}

function measureEngine(validator: SchemaValidator): Figures {
  const compiled = validator.compile(SEARCH_ISSUES_SCHEMA);
  const violations = compiled(INVALID);
  return {
    ...measureInput(`${validator.engine}_valid`, compiled, VALID, true),
    ...measureInput(`${validator.engine}_invalid`, compiled, INVALID, false),
    [`${validator.engine}_invalid_violations`]: violations.valid ? 0 : violations.violations.length,
  };
}

export const validationCost: BenchModule = {
  name: 'validation-cost',
  title: 'Compiled-schema validation of an 8-property argument object (nested object, array, enums, patterns), µs per call',
  async run() {
    return { ...measureEngine(createAjvValidator()), ...measureEngine(createCfworkerValidator()) };
  },
};
