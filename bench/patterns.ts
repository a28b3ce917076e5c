/**
 * `patterns`: how long GET /healthz waits while adversarial inputs hit schema and policy-rule
 * patterns of `toolgate serve` (SQLite). The manifest in use was stored directly, as by a version
 * before the publish check: it has catastrophic patterns the check now refuses, beside accepted
 * ones. Each scenario sends its attack calls (4 in flight) while one probe at a time asks
 * /healthz; every answer is checked, so a figure never comes from error responses.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AuditRecorder } from '../lib/audit/recorder.ts';
import type { Manifest } from '../lib/registry/manifest/manifest.ts';
import { compileSafePattern } from '../lib/patterns/index.ts';
import { activateManifest, publishManifest } from '../lib/registry/manifest/manifest-store.ts';
import { SqliteStore } from '../lib/stores/sqlite/sqlite-store.ts';
import { freePort } from '../scripts/dev/free-port.ts';
import { REPO_ROOT } from '../test/helpers/processes.ts';
import type { BenchModule, Figures } from './harness.ts';
import { progress, round, verdict } from './harness.ts';
import { checkCostFigures } from './pattern-check-cost.ts';
import { aperiodicValue, BATCH_CALLS, BATCH_VALUE_LENGTH, CACHE_DEFEATING_PATTERN, requestStallFigures } from './pattern-request-stall.ts';
import { distribution } from './stats.ts';

const KEY = 'tg_bench_patterns_key_0123456789abcdef';
const TENANT = 'bench';
const ATTACK = `${'a'.repeat(29)}!`;
const IN_FLIGHT = 4;
const CALLS_PER_SCENARIO = 200;
const PROBE_GAP_MS = 5;
/** The budget: a 30-character adversarial input never delays /healthz by more than this. */
const HEALTHZ_BUDGET_MS = 100;

/** Catastrophic under a backtracking engine; stored directly, the publish check would refuse them. */
const CATASTROPHIC_SCHEMA = '^(a+)+$';
const CATASTROPHIC_RULE = '(\\w+\\s?)*';
/** Accepted by the check: one repetition of words, each ended by a space. */
const ACCEPTED_SCHEMA = '^(?:\\w+ )*\\w+$';
const ACCEPTED_RULE = '(ls|pwd|git (status|diff|log))( [^;&|`$<>]*)?';
/** Accepted too, but each position of an input that never repeats is a new set of 900 threads. */
const CACHE_DEFEATING_SCHEMA = '[ab]*a[ab]{900}$';

const textTool = (name: string, pattern?: string) => ({
  name,
  executor: { kind: 'builtin', name: 'echo' },
  input_schema: { type: 'object', properties: { text: { type: 'string', ...(pattern ? { pattern } : {}) } }, required: ['text'] },
});

function manifest(version: string, withCatastrophic: boolean): Manifest {
  return {
    format: 'toolgate.manifest/v1',
    tenant: TENANT,
    version,
    profile: 'openai',
    policy: {
      read: 'grant',
      rules: [
        ...(withCatastrophic ? [{ tool: 'stored_rule', arguments: { text: CATASTROPHIC_RULE }, action: 'deny' as const }] : []),
        { tool: 'accepted_rule', arguments: { text: ACCEPTED_RULE }, action: 'deny' as const },
        { tool: 'batch', arguments: { text: CACHE_DEFEATING_PATTERN }, action: 'deny' as const },
      ],
    },
    tools: [
      ...(withCatastrophic ? [textTool('stored_schema', CATASTROPHIC_SCHEMA), textTool('stored_rule')] : []),
      textTool('accepted_schema', ACCEPTED_SCHEMA),
      textTool('accepted_rule'),
      textTool('long_input', CACHE_DEFEATING_SCHEMA),
      textTool('batch', CACHE_DEFEATING_PATTERN),
      textTool('plain'),
    ],
  } as unknown as Manifest;
}

interface Scenario {
  name: string;
  tool: string;
  text: string;
  /** The status every call must come back with (either, where two are listed). */
  status: string | readonly [string, string];
}

function aperiodic(length: number): string {
  let seed = 7;
  return Array.from({ length }, () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) % 2 === 0 ? 'a' : 'b')).join('');
}

const SCENARIOS: Scenario[] = [
  // The same load without any pattern: what the server's own work delays /healthz by.
  { name: 'control', tool: 'plain', text: 'hello', status: 'ok' },
  // The stored schema is refused when the tool's schema is compiled: an error, at once.
  { name: 'stored_schema', tool: 'stored_schema', text: ATTACK, status: 'error' },
  // The stored rule is matched in linear time: the attack is not a run of words, so no deny.
  { name: 'stored_rule', tool: 'stored_rule', text: ATTACK, status: 'ok' },
  { name: 'accepted_schema', tool: 'accepted_schema', text: `${'a '.repeat(14)}a!`, status: 'invalid_arguments' },
  { name: 'accepted_rule', tool: 'accepted_rule', text: `git log ${'-'.repeat(21)};`, status: 'ok' },
  // Not 30 characters: 100,000, to show what the matching budget bounds; and the same text without a pattern.
  // Refused by the validation's own budget (invalid_arguments), or by the request's when its 40 ms run out first (error).
  { name: 'long_input', tool: 'long_input', text: aperiodic(100_000), status: ['invalid_arguments', 'error'] },
  { name: 'long_control', tool: 'plain', text: aperiodic(100_000), status: 'ok' },
];

/** Puts the manifest in the store as an earlier version would have: no check. */
async function storeDirectly(databasePath: string): Promise<void> {
  const store = new SqliteStore(databasePath);
  const audit = new AuditRecorder(store);
  await publishManifest(store, audit, manifest('2', true), 'bench');
  await activateManifest(store, audit, TENANT, '2', 'bench');
  await store.close();
}

function startServe(env: Record<string, string>) {
  const child = spawn(process.execPath, ['bin/toolgate.js', 'serve'], { cwd: REPO_ROOT, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  return {
    output: () => output,
    async stop() {
      process.off('exit', killOnExit);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

const sleep = (ms: number) => new Promise<void>((done) => setTimeout(done, ms));

async function waitHealthy(origin: string, output: () => string): Promise<void> {
  const deadline = performance.now() + 60_000;
  for (;;) {
    try {
      if ((await fetch(`${origin}/healthz`)).ok) return;
    } catch {
      // not listening yet
    }
    if (performance.now() > deadline) throw new Error(`toolgate serve did not answer /healthz within 60 s:\n${output()}`);
    await sleep(50);
  }
}

async function probeHealthz(origin: string, until: () => boolean): Promise<Float64Array> {
  const samples: number[] = [];
  while (!until()) {
    const started = performance.now();
    const response = await fetch(`${origin}/healthz`);
    if (!response.ok) throw new Error(`GET /healthz answered ${response.status}`);
    await response.arrayBuffer();
    samples.push(performance.now() - started);
    await sleep(PROBE_GAP_MS);
  }
  return Float64Array.from(samples);
}

async function attack(origin: string, scenario: Scenario, calls: number): Promise<Float64Array> {
  const latencies: number[] = [];
  let next = 0;
  const worker = async () => {
    while (next < calls) {
      const n = next++;
      const started = performance.now();
      const response = await fetch(`${origin}/v1/dispatch`, {
        method: 'POST',
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ thread_id: `${scenario.name}-${n}`, calls: [{ call_id: 'c', name: scenario.tool, arguments: { text: scenario.text } }] }),
      });
      const text = await response.text();
      latencies.push(performance.now() - started);
      const status = response.ok ? (JSON.parse(text) as { results: Array<{ status: string }> }).results[0]?.status : `http ${response.status}`;
      if (!(typeof scenario.status === 'string' ? [scenario.status] : scenario.status).includes(status)) throw new Error(`${scenario.name}: expected ${scenario.status}, got ${status}: ${text.slice(0, 300)}`);
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  return Float64Array.from(latencies);
}

async function runScenario(origin: string, scenario: Scenario, figures: Figures): Promise<void> {
  progress(`patterns: ${scenario.name}`);
  let done = false;
  const calls = scenario.name.startsWith('long_') ? 20 : CALLS_PER_SCENARIO;
  const probing = probeHealthz(origin, () => done);
  const latencies = await attack(origin, scenario, calls).finally(() => (done = true));
  const healthz = distribution(await probing);
  const call = distribution(latencies);
  figures[`${scenario.name}_healthz_p50_ms`] = healthz.p50;
  figures[`${scenario.name}_healthz_max_ms`] = healthz.max;
  figures[`${scenario.name}_call_p50_ms`] = call.p50;
  figures[`${scenario.name}_call_max_ms`] = call.max;
}

/** Requests of 128 calls sent `inFlight` at a time, `each` per sender: their latencies, every answer checked. */
async function sendBatches(origin: string, tool: string, inFlight: number, each: number, check: (statuses: string[], contents: string[]) => void): Promise<Float64Array> {
  const latencies: number[] = [];
  const calls = Array.from({ length: BATCH_CALLS }, (_, i) => ({ call_id: `c${i}`, name: tool, arguments: { text: tool === 'plain' ? `call ${i}` : aperiodicValue(BATCH_VALUE_LENGTH, i + 1) } }));
  const sender = async (worker: number) => {
    for (let n = 0; n < each; n++) {
      const started = performance.now();
      const response = await fetch(`${origin}/v1/dispatch`, {
        method: 'POST',
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ thread_id: `${tool}-${worker}-${n}`, parallel: true, calls }),
      });
      const text = await response.text();
      latencies.push(performance.now() - started);
      if (!response.ok) throw new Error(`${tool} batch: http ${response.status}: ${text.slice(0, 300)}`);
      const { results } = JSON.parse(text) as { results: Array<{ status: string; content: string }> };
      check(results.map((r) => r.status), results.map((r) => r.content));
    }
  };
  await Promise.all(Array.from({ length: inFlight }, (_, worker) => sender(worker)));
  return Float64Array.from(latencies);
}

/**
 * One request of 128 calls, each matching a 1,000-character value against a cache-defeating
 * schema pattern and deny rule: how long /healthz waits. The request's pattern budget cuts it
 * short (the rest answer error); the control sends 128 plain calls, without patterns.
 */
async function batchFigures(origin: string, figures: Figures): Promise<void> {
  const cutShort = (statuses: string[], contents: string[]) => {
    if (statuses.at(-1) !== 'error' || !/was not run: this request used up its time for matching/.test(contents.at(-1) ?? '')) {
      throw new Error(`batch: the last call was not refused for the request's pattern budget: ${statuses.at(-1)} ${contents.at(-1)?.slice(0, 200)}`);
    }
  };
  const allOk = (statuses: string[]) => {
    if (statuses.some((status) => status !== 'ok')) throw new Error(`batch control: ${statuses.find((status) => status !== 'ok')}`);
  };
  for (const [name, tool, inFlight, each, check] of [
    ['batch_control', 'plain', 1, 5, allOk],
    ['batch', 'batch', 1, 5, cutShort],
    ['batch_4_concurrent', 'batch', 4, 3, cutShort],
  ] as const) {
    progress(`patterns: ${name}`);
    let done = false;
    const probing = probeHealthz(origin, () => done);
    const latencies = await sendBatches(origin, tool, inFlight, each, check).finally(() => (done = true));
    const healthz = distribution(await probing);
    figures[`${name}_healthz_p50_ms`] = healthz.p50;
    figures[`${name}_healthz_max_ms`] = healthz.max;
    figures[`${name}_request_p50_ms`] = distribution(latencies).p50;
  }
  figures.batch_before_review = '128 calls × 1,000 characters: ~1.1-1.3 s blocked per request; 4 concurrent: /healthz p50 2.3 s, max 4.6 s';
}

/** The linear-time matcher alone on the attacks, in this process: the first check (compiling too) and the median of 1,000. */
function matcherFigures(figures: Figures): void {
  for (const [name, source, wholeValue] of [['schema', CATASTROPHIC_SCHEMA, false], ['rule', CATASTROPHIC_RULE, true]] as const) {
    let started = performance.now();
    const pattern = compileSafePattern(source, 'u', { wholeValue });
    pattern.test(ATTACK);
    figures[`matcher_${name}_first_check_us`] = round((performance.now() - started) * 1000);
    const samples = new Float64Array(1000);
    for (let i = 0; i < samples.length; i++) {
      started = performance.now();
      pattern.test(ATTACK);
      samples[i] = (performance.now() - started) * 1000;
    }
    figures[`matcher_${name}_check_p50_us`] = distribution(samples).p50;
  }
}

/** JavaScript's own RegExp on the schema's catastrophic pattern: 24 characters only, each one more doubles it. */
function backtrackingFigures(figures: Figures): void {
  const started = performance.now();
  new RegExp(CATASTROPHIC_SCHEMA, 'u').test(`${'a'.repeat(23)}!`);
  figures.javascript_regexp_24_chars_ms = round(performance.now() - started);
  figures.javascript_regexp_30_chars_estimated_s = round(((figures.javascript_regexp_24_chars_ms as number) * 2 ** 6) / 1000);
}

export const patternsBench: BenchModule = {
  name: 'patterns',
  title:
    'GET /healthz latency (ms) of `toolgate serve` while 30-character adversarial inputs hit catastrophic (stored directly) and accepted schema and rule patterns, and while 128-call requests hit a cache-defeating one; the publish check on its worst shapes and on 1 MB of patterns; one request\'s stall before/after the request budget',
  async run() {
    const dir = mkdtempSync(join(tmpdir(), 'toolgate-bench-patterns-'));
    const dataDir = join(dir, 'data');
    const manifestPath = join(dir, 'manifest.json');
    writeFileSync(manifestPath, JSON.stringify(manifest('1', false)));
    const figures: Figures = {};
    backtrackingFigures(figures);
    matcherFigures(figures);
    progress('patterns: the publish check on its worst shapes');
    checkCostFigures(figures);
    requestStallFigures(figures);
    const port = await freePort();
    const origin = `http://127.0.0.1:${port}`;
    // The earlier version goes into the store before serve's first start (which seeds version 1 and keeps 2 active).
    mkdirSync(dataDir, { recursive: true });
    await storeDirectly(join(dataDir, 'toolgate.db'));
    const serve = startServe({ PORT: String(port), HOST: '127.0.0.1', TOOLGATE_DATA_DIR: dataDir, TOOLGATE_MANIFEST: manifestPath, TOOLGATE_DEMO_KEY: KEY });
    try {
      await waitHealthy(origin, serve.output);
      let done = false;
      const baseline = probeHealthz(origin, () => done);
      await sleep(1000);
      done = true;
      const idle = distribution(await baseline);
      figures.idle_healthz_p50_ms = idle.p50;
      figures.idle_healthz_max_ms = idle.max;
      for (const scenario of SCENARIOS) await runScenario(origin, scenario, figures);
      const attacks = SCENARIOS.filter((s) => !s.name.startsWith('long_') && s.name !== 'control');
      figures.attack_30_chars_healthz_max_ms = round(Math.max(...attacks.map((s) => figures[`${s.name}_healthz_max_ms`] as number)));
      // What the patterns add over the same load without them: on a shared machine the raw max
      // moves with other processes (the control's too), the difference much less.
      const added = (suffix: string) => round(Math.max(...attacks.map((s) => (figures[`${s.name}_healthz_${suffix}_ms`] as number) - (figures[`control_healthz_${suffix}_ms`] as number))));
      figures.attack_30_chars_added_healthz_p50_ms = added('p50');
      figures.attack_30_chars_added_healthz_max_ms = added('max');
      figures.healthz_verdict = verdict('/healthz max added by 30-character attacks over the control', added('max'), '<=', HEALTHZ_BUDGET_MS, ' ms');
      await batchFigures(origin, figures);
      return figures;
    } finally {
      await serve.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
