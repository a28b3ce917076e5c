/**
 * The security review's worst cases for schema validation, per engine: arguments with tens of
 * thousands of problems (or a schema whose one failure is reported 2^11 times, the longest chain the schema cost bound accepts), through the
 * validate stage in-process and through the real app (`POST /v1/dispatch`, memory store): how
 * long one call blocks the process, how many problems the answer lists and how many bytes the
 * answer and the call's audit take. Before the fix these were seconds and megabytes.
 */
import { createApiKey } from '../lib/governance/api-keys.ts';
import { SchemaCache } from '../lib/dispatch/schema-cache.ts';
import { validateStage } from '../lib/dispatch/stages/validate.ts';
import { createGateway } from '../lib/http/gateway.ts';
import { defineTool } from '../lib/registry/definition.ts';
import type { JsonObject, JsonSchema } from '../lib/registry/json.ts';
import type { Manifest } from '../lib/registry/manifest/manifest.ts';
import { MemoryStore } from '../lib/stores/memory.ts';
import { createAjvValidator } from '../lib/validation/ajv-engine.ts';
import { createCfworkerValidator } from '../lib/validation/cfworker-engine.ts';
import type { SchemaValidator } from '../lib/validation/validator.ts';
import { NULLABLE_TAGS_SCHEMA, STRING_TAGS_SCHEMA, ECHO_SCHEMA, refChainSchema, unknownArguments, wrongTags } from '../test/fixtures/validation-attacks.ts';
import type { BenchModule, Figures } from './harness.ts';
import { progress, round } from './harness.ts';

interface Case {
  name: string;
  tool: string;
  schema: JsonSchema;
  args: () => JsonObject;
  /** Also sent through the app (the reviewer's HTTP cases). */
  http: boolean;
}

const CASES: Case[] = [
  { name: 'nullable_items_60k', tool: 'tag_items', schema: NULLABLE_TAGS_SCHEMA, args: () => wrongTags(60_000), http: true },
  { name: 'nullable_items_100k', tool: 'tag_items', schema: NULLABLE_TAGS_SCHEMA, args: () => wrongTags(100_000), http: false },
  { name: 'string_items_100k', tool: 'string_items', schema: STRING_TAGS_SCHEMA, args: () => wrongTags(100_000), http: true },
  { name: 'echo_extra_90k', tool: 'echo', schema: ECHO_SCHEMA, args: () => unknownArguments(90_000), http: true },
  // The longest chain the schema cost bound accepts (8 levels are refused: bench/schema-cost.ts).
  { name: 'ref_chain_7', tool: 'ref_chain', schema: refChainSchema(7), args: () => ({ x: 1 }), http: false },
];

const failureMessage = (failure: { message: string }) => failure.message;

/** One call through the validate stage (compiled beforehand): ms, problems listed, message bytes. */
function measureStage(prefix: string, validator: SchemaValidator, c: Case): Figures {
  const schemas = new SchemaCache(validator);
  const definition = defineTool({ name: c.tool, input_schema: c.schema });
  schemas.get(definition);
  const args = c.args();
  const started = performance.now();
  let outcome;
  try {
    outcome = validateStage(schemas, definition, args);
  } catch (error) {
    return { [`${prefix}_stage_ms`]: round(performance.now() - started), [`${prefix}_stage_threw`]: String(error).slice(0, 80) };
  }
  const ms = performance.now() - started;
  if (outcome.ok) throw new Error(`${prefix}: the arguments were accepted`);
  const listed = (outcome.failure.details?.violations as unknown[] | undefined)?.length ?? 0;
  return {
    [`${prefix}_stage_ms`]: round(ms),
    [`${prefix}_code`]: outcome.failure.code,
    [`${prefix}_listed`]: listed,
    [`${prefix}_message_bytes`]: failureMessage(outcome.failure).length,
  };
}

function manifestOf(): Manifest {
  const tools = CASES.filter((c) => c.http && c.tool !== 'echo').map((c) => ({ name: c.tool, description: c.name, tier: 'read', executor: { kind: 'client' }, input_schema: c.schema }));
  return {
    format: 'toolgate.manifest/v1',
    tenant: 'acme',
    version: '1',
    policy: { read: 'grant', write: 'review', execute: 'review' },
    tools: [{ name: 'echo', executor: { kind: 'builtin' } }, ...tools],
  } as unknown as Manifest;
}

/** The reviewer's HTTP cases through the app: ms, HTTP status, answer bytes, audit bytes. */
async function measureApp(engine: string, validator: SchemaValidator): Promise<Figures> {
  const store = new MemoryStore();
  const gateway = createGateway({ store, env: {}, manifests: [manifestOf()], validator });
  await gateway.ready;
  const { key } = await createApiKey(store, { tenant: 'acme', principal: 'agent', scopes: ['audit:read'] });
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json', host: 'localhost' };
  const figures: Figures = {};
  for (const c of CASES.filter((k) => k.http)) {
    const prefix = `${engine}_${c.name}`;
    const thread = `bench-${c.name}`;
    const body = JSON.stringify({ thread_id: thread, calls: [{ call_id: 'c1', name: c.tool, arguments: c.args() }] });
    const started = performance.now();
    const response = await gateway.fetch(new Request('http://localhost/v1/dispatch', { method: 'POST', headers, body }));
    const text = await response.text();
    const ms = performance.now() - started;
    const audit = await (await gateway.fetch(new Request(`http://localhost/v1/audit?thread_id=${thread}`, { headers }))).text();
    const status = response.status === 200 ? (JSON.parse(text) as { results: Array<{ status: string }> }).results[0].status : `HTTP ${response.status}`;
    Object.assign(figures, {
      [`${prefix}_body_bytes`]: body.length,
      [`${prefix}_dispatch_ms`]: round(ms),
      [`${prefix}_dispatch_status`]: status,
      [`${prefix}_answer_bytes`]: text.length,
      // The audit holds the raw arguments (bounded by the body limit) besides the message.
      [`${prefix}_audit_bytes`]: audit.length,
    });
  }
  return figures;
}

const UNIQUE_LABELS_SCHEMA: JsonSchema = { type: 'object', properties: { labels: { type: 'array', items: { type: 'object' }, uniqueItems: true } } };

/**
 * `uniqueItems` over `count` distinct objects (the worst case: every pair compared before), ms.
 * ajv compared every pair (now one pass); the eval-free library still does, so it gets fewer.
 */
function measureUniqueItems(engine: string, validator: SchemaValidator, count: number): Figures {
  const labels: JsonObject[] = Array.from({ length: count }, (_, i) => ({ id: i, name: `label ${i}` }));
  const compiled = validator.compile(UNIQUE_LABELS_SCHEMA);
  const started = performance.now();
  const outcome = compiled({ labels });
  const ms = performance.now() - started;
  if (!outcome.valid) throw new Error(`${engine}: distinct labels were refused`);
  return { [`${engine}_unique_objects_${count}_ms`]: round(ms) };
}

async function measureEngine(engine: string, make: () => SchemaValidator): Promise<Figures> {
  const figures: Figures = {};
  progress(`validation-worst-case: ${engine} uniqueItems`);
  Object.assign(figures, measureUniqueItems(engine, make(), 8_000));
  if (engine === 'ajv') Object.assign(figures, measureUniqueItems(engine, make(), 100_000));
  for (const c of CASES) {
    progress(`validation-worst-case: ${engine} ${c.name}`);
    Object.assign(figures, measureStage(`${engine}_${c.name}`, make(), c));
  }
  return { ...figures, ...(await measureApp(engine, make())) };
}

export const validationWorstCase: BenchModule = {
  name: 'validation-worst-case',
  title: 'One call whose arguments have tens of thousands of problems (the security review): ms blocked, problems listed, bytes answered and audited',
  async run() {
    return { ...(await measureEngine('ajv', createAjvValidator)), ...(await measureEngine('cfworker', createCfworkerValidator)) };
  },
};
