import { useNodeCrypto } from '../lib/cli/node-crypto.ts';
import type { ToolCall } from '../lib/dispatch/call.ts';
import { ToolRouter, type RouterCallContext } from '../lib/dispatch/router.ts';
import type { Store } from '../lib/stores/store.ts';
import type { BenchModule, Figures } from './harness.ts';
import { progress, round, verdict } from './harness.ts';
import { STORE_ADAPTERS, type OpenStore, type StoreAdapter } from './store-adapters.ts';
import { loggedStore, StoreCallLog } from './store-meters.ts';
import { distribution, timeEachAsync, type Distribution } from './stats.ts';

/**
 * Claim, start and completion on a remote store: one round trip each for claimWithHead, the
 * commit that marks the call executing with its request and decision envelopes before the side
 * effect (crash safety), and the commit of the result with its envelope.
 */
const BUDGET_ROUND_TRIPS = 3;
const ENVELOPES_PER_CALL = 3;
const BASELINE = { iterations: 20_000, warmup: 2_000 };
/** Per adapter: the remote ones cost milliseconds a call (dynalite most), so fewer calls. */
const RUNS: Record<string, { iterations: number; warmup: number }> = {
  memory: { iterations: 10_000, warmup: 1_000 },
  sqlite: { iterations: 5_000, warmup: 500 },
  upstash: { iterations: 2_000, warmup: 200 },
  dynamodb: { iterations: 500, warmup: 50 },
};

/** A write-tier tool that does nothing: with a store every call is claimed, completed and audited. */
function noopWriteRouter(store: Store | undefined, failures: string[]): ToolRouter {
  const log = (event: string, fields: Record<string, unknown>) => {
    // The record stage only logs a failed commit; a benchmark must not time it as a success.
    if (event === 'tools.dispatch.failed') failures.push(JSON.stringify(fields));
  };
  const router = new ToolRouter(undefined, 5000, { policy: { write: 'grant' }, ...(store ? { store } : {}), log });
  router.register('noop_write', { description: 'Changes nothing.', tier: 'write', input_schema: { type: 'object', properties: { x: { type: 'integer' } } } }, () => 'done');
  return router;
}

type Scenario = 'steady' | 'fresh_thread';
const STEADY_THREAD = 'steady';
let sequence = 0;

/** Steady: many calls of one thread (its audit head known); fresh: every call opens a new thread. */
function nextCall(scenario: Scenario): { call: ToolCall; context: RouterCallContext } {
  const n = ++sequence;
  const thread_id = scenario === 'steady' ? STEADY_THREAD : `fresh-${n}`;
  return { call: { call_id: `c-${n}`, name: 'noop_write', arguments: { x: 1 } }, context: { thread_id } };
}

function checkedExecute(router: ToolRouter, scenario: Scenario, failures: string[]): () => Promise<void> {
  return async () => {
    const { call, context } = nextCall(scenario);
    const result = await router.execute(call, context);
    if (result.status !== 'ok' || result.replayed) throw new Error(`no-op write call answered ${result.status}: ${result.content}`);
    if (failures.length > 0) throw new Error(`the store failed during dispatch: ${failures[0]}`);
  };
}

interface ScenarioFigures {
  latency: Distribution;
  storeCallsPerCall: number;
  requestsPerCall: number | undefined;
  roundTripsPerCall: number | undefined;
  serverRequestsPerCall: number | undefined;
  /** What one call sent: store methods, and the requests they became. */
  oneCall: string;
}

async function runScenario(open: OpenStore, calls: StoreCallLog, router: ToolRouter, scenario: Scenario, runs: { iterations: number; warmup: number }, failures: string[]): Promise<ScenarioFigures> {
  const call = checkedExecute(router, scenario, failures);
  for (let i = 0; i < runs.warmup; i++) await call();
  calls.reset();
  open.meter?.reset();
  const serverBefore = open.serverRequests?.() ?? 0;
  const latency = distribution(await timeEachAsync(runs.iterations, 0, call));
  const perCall = (count: number) => round(count / runs.iterations);
  // Counted before describeOneCall resets the logs.
  const storeCalls = perCall(calls.calls.length);
  const requests = open.meter ? perCall(open.meter.requests) : undefined;
  const roundTrips = open.meter ? perCall(open.meter.roundTrips) : undefined;
  const serverRequests = open.serverRequests ? perCall(open.serverRequests() - serverBefore) : undefined;
  return {
    latency,
    storeCallsPerCall: storeCalls,
    requestsPerCall: requests,
    roundTripsPerCall: roundTrips,
    serverRequestsPerCall: serverRequests,
    oneCall: await describeOneCall(open, calls, call),
  };
}

/** e.g. `claimWithHead, commit → PutItem+GetItem | TransactWriteItems` (`+` = sent together, `|` = next round trip). */
async function describeOneCall(open: OpenStore, calls: StoreCallLog, call: () => Promise<void>): Promise<string> {
  calls.reset();
  const meter = open.meter;
  if (!meter) {
    await call();
    return calls.calls.join(', ');
  }
  meter.reset();
  meter.labelling = true;
  try {
    await call();
  } finally {
    meter.labelling = false;
  }
  return `${calls.calls.join(', ')} → ${meter.describeRequests()}`;
}

/** The audit chain must hold every call's envelopes: proof the commits really happened. */
async function checkAuditTrail(store: Store, expectedCalls: number): Promise<void> {
  const head = await store.readAuditHead({ tenant: 'local', thread_id: STEADY_THREAD });
  const expected = expectedCalls * ENVELOPES_PER_CALL;
  if (head?.seq !== expected) throw new Error(`the steady thread's audit head is at seq ${head?.seq ?? 'none'}, expected ${expected}`);
}

function scenarioFigures(prefix: string, s: ScenarioFigures, baseline: Distribution, remote: boolean): Figures {
  const figures: Figures = {
    [`${prefix}_p50_us`]: s.latency.p50,
    [`${prefix}_p99_us`]: s.latency.p99,
    [`${prefix}_added_p50_us`]: round(s.latency.p50 - baseline.p50),
    [`${prefix}_added_p99_us`]: round(s.latency.p99 - baseline.p99),
    [`${prefix}_store_calls_per_call`]: s.storeCallsPerCall,
  };
  if (s.requestsPerCall !== undefined) figures[`${prefix}_http_requests_per_call`] = s.requestsPerCall;
  if (s.serverRequestsPerCall !== undefined) figures[`${prefix}_bridge_requests_per_call`] = s.serverRequestsPerCall;
  if (s.roundTripsPerCall !== undefined) figures[`${prefix}_round_trips_per_call`] = s.roundTripsPerCall;
  figures[`${prefix}_one_call`] = s.oneCall;
  if (remote && s.roundTripsPerCall !== undefined) {
    figures[`${prefix}_round_trips_verdict`] = verdict('round trips per call', s.roundTripsPerCall, '<=', BUDGET_ROUND_TRIPS, '');
  }
  return figures;
}

async function measureAdapter(adapter: StoreAdapter, baseline: Distribution): Promise<Figures> {
  const runs = RUNS[adapter.name];
  return adapter.use(async (open) => {
    const calls = new StoreCallLog();
    const failures: string[] = [];
    const router = noopWriteRouter(loggedStore(open.store, calls), failures);
    const steady = await runScenario(open, calls, router, 'steady', runs, failures);
    // warm-up + timed + the described call, all in the steady thread.
    await checkAuditTrail(open.store, runs.warmup + runs.iterations + 1);
    const fresh = await runScenario(open, calls, router, 'fresh_thread', runs, failures);
    const p = adapter.name;
    return {
      [`${p}_iterations`]: runs.iterations,
      ...scenarioFigures(`${p}_steady`, steady, baseline, adapter.remote),
      ...scenarioFigures(`${p}_fresh_thread`, fresh, baseline, adapter.remote),
    };
  });
}

export const storesBench: BenchModule = {
  name: 'stores',
  title: 'ToolRouter.execute() of a no-op write tool with each store vs none (µs, each call timed), and the store calls, HTTP requests and sequential round trips per call',
  async run(): Promise<Figures> {
    // What the Node entrypoints do: synchronous SHA-256 for idempotency keys and audit hashes.
    useNodeCrypto();
    const failures: string[] = [];
    const baseline = distribution(await timeEachAsync(BASELINE.iterations, BASELINE.warmup, checkedExecute(noopWriteRouter(undefined, failures), 'steady', failures)));
    const figures: Figures = { no_store_p50_us: baseline.p50, no_store_p99_us: baseline.p99 };
    for (const adapter of STORE_ADAPTERS) {
      progress(`stores: ${adapter.name}`);
      Object.assign(figures, await measureAdapter(adapter, baseline));
    }
    return figures;
  },
};
