import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ToolRouter } from '../lib/dispatch/router.ts';
import { tracerFromEnv } from '../lib/telemetry/config.ts';
import type { Tracer } from '../lib/telemetry/tracer.ts';
import type { BenchModule, Figures } from './harness.ts';
import { progress, round, verdict } from './harness.ts';
import { median } from './stats.ts';

const CALLS_PER_ROUND = 4_000;
/** Many short rounds, the modes' order rotated each round: the machine's load moves less within one round than across a long one. */
const ROUNDS = 15;
const WARMUP_ROUNDS = 2;
/** A traced call of this tool makes two spans: execute_tool and its toolgate.execute child. */
const SPANS_PER_CALL = 2;
/**
 * What one span may cost, export included: a traced /v1/dispatch of a write tool has seven (HTTP,
 * execute_tool, claim, begin, execute, record), so this keeps tracing to a few percent of a
 * deployed request's CPU (issue 13 measured ~1.3 ms per request under `npm start`).
 */
const BUDGET_PER_SPAN_US = 10;

type Mode = 'off' | 'on' | 'sampled_out';
const MODES: Mode[] = ['off', 'on', 'sampled_out'];

/** A collector stand-in on loopback that reads and drops each export, as a fast collector would. */
async function startSink(): Promise<{ url: string; exports: () => number; close(): Promise<void> }> {
  let count = 0;
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      count++;
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, exports: () => count, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** A no-op read tool without a store (as dispatch-overhead), so the pipeline's own work is small and the tracer's shows. */
function noopRouter(tracer: Tracer | undefined): ToolRouter {
  const router = new ToolRouter(undefined, 5000, { tracer });
  router.register('noop', { description: 'Does nothing.', tier: 'read', input_schema: { type: 'object', properties: { x: { type: 'integer' } } } }, () => '');
  return router;
}

function tracerFor(mode: Mode, sinkUrl: string): Tracer | undefined {
  if (mode === 'off') return undefined;
  return tracerFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: sinkUrl, OTEL_TRACES_SAMPLER: mode === 'on' ? 'always_on' : 'always_off' }, { schedule: 'interval', log: () => {} });
}

/** CPU time (user + system) per call, the round's exports included: waiting for a CPU other processes hold is not the tracer's cost. */
async function cpuPerCall(router: ToolRouter, tracer: Tracer | undefined, label: string): Promise<number> {
  const started = process.cpuUsage();
  for (let i = 0; i < CALLS_PER_ROUND; i++) {
    const result = await router.execute({ call_id: `${label}-${i}`, name: 'noop', arguments: { x: 1 } });
    if (result.status !== 'ok') throw new Error(`the bench call failed: ${result.content}`);
  }
  await tracer?.flush();
  const used = process.cpuUsage(started);
  return (used.user + used.system) / CALLS_PER_ROUND;
}

export const tracingCost: BenchModule = {
  name: 'tracing-cost',
  title: `OpenTelemetry's cost per call: ToolRouter.execute() of a no-op read tool with tracing off / on (exported over OTLP/HTTP JSON to a loopback sink) / on but sampled out; ${ROUNDS} rounds of ${CALLS_PER_ROUND.toLocaleString('en')} calls per mode, modes interleaved (CPU µs per call)`,
  async run(): Promise<Figures> {
    const sink = await startSink();
    const setups = Object.fromEntries(MODES.map((mode) => {
      const tracer = tracerFor(mode, sink.url);
      return [mode, { tracer, router: noopRouter(tracer) }];
    })) as Record<Mode, { tracer: Tracer | undefined; router: ToolRouter }>;
    const perMode: Record<Mode, number[]> = { off: [], on: [], sampled_out: [] };
    const added: number[] = [];
    const addedSampledOut: number[] = [];
    try {
      for (let r = 0; r < WARMUP_ROUNDS + ROUNDS; r++) {
        progress(`tracing-cost round ${r + 1}/${WARMUP_ROUNDS + ROUNDS}`);
        const measured = {} as Record<Mode, number>;
        for (let m = 0; m < MODES.length; m++) {
          const mode = MODES[(m + r) % MODES.length]!;
          measured[mode] = await cpuPerCall(setups[mode].router, setups[mode].tracer, `${mode}-${r}`);
        }
        if (r < WARMUP_ROUNDS) continue;
        for (const mode of MODES) perMode[mode].push(measured[mode]);
        added.push(measured.on - measured.off);
        addedSampledOut.push(measured.sampled_out - measured.off);
      }
    } finally {
      for (const { tracer } of Object.values(setups)) await tracer?.shutdown();
      await sink.close();
    }
    const offUs = median(perMode.off);
    const onUs = median(perMode.on);
    const addedUs = median(added);
    return {
      rounds: ROUNDS,
      calls_per_round: CALLS_PER_ROUND,
      off_cpu_us_per_call: round(offUs),
      on_cpu_us_per_call: round(onUs),
      sampled_out_cpu_us_per_call: round(median(perMode.sampled_out)),
      added_cpu_us_per_call: round(addedUs),
      added_cpu_us_per_span: round(addedUs / SPANS_PER_CALL),
      added_sampled_out_cpu_us_per_call: round(median(addedSampledOut)),
      on_vs_off_ratio: round(onUs / offUs),
      exports_received: sink.exports(),
      added_verdict: verdict('CPU added per span (median of same-round differences / spans per call)', addedUs / SPANS_PER_CALL, '<=', BUDGET_PER_SPAN_US, ' µs'),
    };
  },
};
