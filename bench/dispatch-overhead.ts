import { ToolRouter } from '../lib/dispatch/router.ts';
import { createAjvValidator } from '../lib/validation/ajv-engine.ts';
import { createCfworkerValidator } from '../lib/validation/cfworker-engine.ts';
import type { SchemaValidator } from '../lib/validation/validator.ts';
import type { BenchModule, Figures } from './harness.ts';
import { verdict } from './harness.ts';
import { distribution, timeEachAsync } from './stats.ts';

const WARMUP = 20_000;
const ITERATIONS = 200_000;
const BUDGET_P99_US = 50;

/** A router with one read-tier tool that does nothing, so execute() is all overhead. */
function noopRouter(validator: SchemaValidator): ToolRouter {
  const router = new ToolRouter(undefined, 5000, { validator });
  router.register(
    'noop',
    { description: 'Does nothing.', tier: 'read', input_schema: { type: 'object', properties: { x: { type: 'integer' } } } },
    () => '',
  );
  return router;
}

async function measureEngine(prefix: string, validator: SchemaValidator): Promise<Figures> {
  const router = noopRouter(validator);
  const check = await router.execute({ call_id: 'check', name: 'noop', arguments: { x: 1 } });
  if (check.status !== 'ok') throw new Error(`the no-op call did not succeed: ${check.content}`);
  // A fresh arguments object per call, as a caller would send; the call id is fixed (read tier: no idempotency).
  const samples = await timeEachAsync(ITERATIONS, WARMUP, () => router.execute({ call_id: 'c', name: 'noop', arguments: { x: 1 } }));
  const d = distribution(samples);
  return {
    [`${prefix}_p50_us`]: d.p50,
    [`${prefix}_p99_us`]: d.p99,
    [`${prefix}_mean_us`]: d.mean,
    [`${prefix}_max_us`]: d.max,
    [`${prefix}_verdict`]: verdict('p99', d.p99, '<=', BUDGET_P99_US, ' µs'),
  };
}

export const dispatchOverhead: BenchModule = {
  name: 'dispatch-overhead',
  title: `ToolRouter.execute() of a no-op read tool, whole call timed, ${ITERATIONS.toLocaleString('en')} calls per engine (µs)`,
  async run() {
    return {
      iterations: ITERATIONS,
      ...(await measureEngine('ajv', createAjvValidator())),
      ...(await measureEngine('cfworker', createCfworkerValidator())),
    };
  },
};
