/**
 * Quotas and rate limits, and rule conditions: what each costs a call. The limit check is timed
 * on every store (a count per window taken, a concurrency lease taken and released); a condition
 * is timed compiled (evaluation alone, and a governor's decision with and without one), with
 * what its compilation and the engine's first load cost once.
 */
import { useNodeCrypto } from '../lib/cli/node-crypto.ts';
import { loadConditionEngine } from '../lib/governance/conditions/condition.ts';
import { policyGovernor, type GovernanceRequest } from '../lib/governance/policy.ts';
import { Limiter } from '../lib/limits/limiter.ts';
import { countersOf } from '../lib/limits/store-counters.ts';
import { defineTool } from '../lib/registry/definition.ts';
import type { BenchModule, Figures } from './harness.ts';
import { progress, round } from './harness.ts';
import { STORE_ADAPTERS } from './store-adapters.ts';
import { distribution, meanOfBatchUs, timeEachAsync } from './stats.ts';

const RUNS: Record<string, { iterations: number; warmup: number }> = {
  memory: { iterations: 20_000, warmup: 2_000 },
  sqlite: { iterations: 3_000, warmup: 300 },
  upstash: { iterations: 1_000, warmup: 100 },
  dynamodb: { iterations: 300, warmup: 30 },
};

const CONDITION = 'args.amount > 100.0 && args.currency == "EUR" && principal.claims.dept == "finance"';
const schema = { type: 'object', properties: { amount: { type: 'number' }, currency: { type: 'string' } } };

async function limitFigures(): Promise<Figures> {
  const figures: Figures = {};
  for (const adapter of STORE_ADAPTERS) {
    progress(`limits: ${adapter.name}`);
    const { iterations, warmup } = RUNS[adapter.name] ?? RUNS.dynamodb;
    await adapter.use(async ({ store }) => {
      const limiter = new Limiter(
        [
          { name: 'count', tools: 'noop', per: 'principal', max: 1_000_000_000, window_seconds: 3600 },
          { name: 'running', tools: 'capped', per: 'principal', concurrency: 1000 },
        ],
        countersOf(store),
      );
      const caller = { tenant: 'bench', principal: 'alice' };
      const window = distribution(await timeEachAsync(iterations, warmup, async () => {
        if (!(await limiter.takeForCall(caller, 'noop', 60_000)).ok) throw new Error('the window limit refused a call');
      }));
      const lease = distribution(await timeEachAsync(iterations, warmup, async () => {
        const taken = await limiter.takeForCall(caller, 'capped', 60_000);
        if (!taken.ok) throw new Error('the concurrency limit refused a call');
        await limiter.release(taken.held);
      }));
      figures[`${adapter.name}_window_take_p50_us`] = round(window.p50);
      figures[`${adapter.name}_window_take_p99_us`] = round(window.p99);
      figures[`${adapter.name}_lease_take_and_release_p50_us`] = round(lease.p50);
      figures[`${adapter.name}_lease_take_and_release_p99_us`] = round(lease.p99);
    });
  }
  return figures;
}

async function conditionFigures(): Promise<Figures> {
  const loadStart = performance.now();
  const engine = await loadConditionEngine();
  const firstLoadMs = performance.now() - loadStart;
  const compileUs = meanOfBatchUs(2_000, () => engine.compile(CONDITION, { ...schema }), () => {});
  const compiled = engine.compile(CONDITION, schema);
  const input = { tool: 'refund', args: { amount: 150, currency: 'EUR' }, principal: 'alice', claims: { dept: 'finance' }, now: Date.now() };
  let sink = 0;
  const evaluateUs = meanOfBatchUs(200_000, () => compiled(input), (v) => { sink += v ? 1 : 0; });
  const definition = defineTool({ name: 'refund', tier: 'write', input_schema: schema });
  const request: GovernanceRequest = { definition, args: { amount: 150, currency: 'EUR' }, principal: 'alice', claims: { dept: 'finance' } };
  const plain = policyGovernor({ write: 'grant', rules: [{ tool: 'refund', arguments: { currency: 'EUR|USD' }, action: 'review' }] });
  const withCondition = policyGovernor({ write: 'grant', rules: [{ tool: 'refund', condition: CONDITION, action: 'review' }] });
  await withCondition.decide(request);
  const decidePlainUs = meanOfBatchUs(100_000, () => plain.decide(request), () => {});
  const decideConditionUs = meanOfBatchUs(100_000, () => withCondition.decide(request), () => {});
  if (sink === 0) throw new Error('the condition never held');
  return {
    condition: CONDITION,
    engine_first_load_ms: round(firstLoadMs),
    condition_compile_us: round(compileUs),
    condition_evaluate_us: round(evaluateUs),
    governor_decide_pattern_rule_us: round(decidePlainUs),
    governor_decide_condition_rule_us: round(decideConditionUs),
  };
}

export const limitsBench: BenchModule = {
  name: 'limits',
  title: 'Limit checks per call on each store (a window count taken; a concurrency lease taken and released), and rule conditions (µs)',
  async run() {
    useNodeCrypto();
    return { ...(await conditionFigures()), ...(await limitFigures()) };
  },
};
