import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ToolRouter } from '../lib/dispatch/router.ts';
import { MemoryStore } from '../lib/stores/memory.ts';
import { tracerFromEnv } from '../lib/telemetry/config.ts';
import type { Tracer } from '../lib/telemetry/tracer.ts';
import type { BenchModule, Figures } from './harness.ts';
import { progress, round, verdict } from './harness.ts';
import { median } from './stats.ts';

const CALLS_PER_ROUND = 3_000;
/** Many short rounds, the modes' order rotated each round: the machine's load moves less within one round. */
const ROUNDS = 12;
/** What tracing may add to a traced call: a few span objects, ids and an amortised share of the export. */
const BUDGET_ADDED_US = 25;

type Mode = 'off' | 'on' | 'sampled_out';

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

/** A write tool over the memory store: each traced call has its execute_tool span and four stage spans (claim, begin, execute, record). */
function router(tracer: Tracer | undefined): ToolRouter {
  const built = new ToolRouter(undefined, 5000, { store: new MemoryStore(), policy: { write: 'grant' }, tracer });
  built.register('note', { description: 'Takes a note.', tier: 'write', input_schema: { type: 'object', properties: { text: { type: 'string' } } } }, () => 'noted');
  return built;
}

async function round_(mode: Mode, sinkUrl: string, roundIndex: number): Promise<number> {
  const tracer = mode === 'off' ? undefined : tracerFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: sinkUrl, OTEL_TRACES_SAMPLER: mode === 'on' ? 'always_on' : 'always_off' }, { schedule: 'interval', log: () => {} });
  const calls = router(tracer);
  for (let i = 0; i < 1_000; i++) await calls.execute({ call_id: `warm-${roundIndex}-${i}`, name: 'note', arguments: { text: 'x' } });
  await tracer?.flush();
  // CPU time (user + system) rather than wall time: waiting for a CPU the other processes hold is not the tracer's cost.
  const started = process.cpuUsage();
  for (let i = 0; i < CALLS_PER_ROUND; i++) {
    const result = await calls.execute({ call_id: `c-${roundIndex}-${i}`, name: 'note', arguments: { text: 'x' } });
    if (result.status !== 'ok') throw new Error(`the bench call failed: ${result.content}`);
  }
  // The export of every span of the round counts: the cost is the calls plus their share of it (the sink's too: same process).
  await tracer?.shutdown();
  const used = process.cpuUsage(started);
  return (used.user + used.system) / CALLS_PER_ROUND;
}

export const tracingCost: BenchModule = {
  name: 'tracing-cost',
  title: `OpenTelemetry's cost per call: a write tool over the memory store, tracing off / on (exported to a loopback sink) / on but sampled out, ${ROUNDS} rounds of ${CALLS_PER_ROUND.toLocaleString('en')} calls, modes interleaved (CPU µs per call)`,
  async run(): Promise<Figures> {
    const sink = await startSink();
    const perMode: Record<Mode, number[]> = { off: [], on: [], sampled_out: [] };
    const added: number[] = [];
    try {
      const modes: Mode[] = ['off', 'on', 'sampled_out'];
      for (let r = 0; r < ROUNDS; r++) {
        progress(`tracing-cost round ${r + 1}/${ROUNDS}`);
        const measured = {} as Record<Mode, number>;
        for (let m = 0; m < modes.length; m++) {
          const mode = modes[(m + r) % modes.length]!;
          measured[mode] = await round_(mode, sink.url, r);
          perMode[mode].push(measured[mode]);
        }
        added.push(measured.on - measured.off);
      }
    } finally {
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
      on_vs_off_ratio: round(onUs / offUs),
      exports_received: sink.exports(),
      added_verdict: verdict('CPU added per traced call (median of same-round differences)', addedUs, '<=', BUDGET_ADDED_US, ' µs'),
    };
  },
};
