import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import type { BenchModule, Figures } from './harness.ts';
import { progress, round } from './harness.ts';
import { jsonTemplate } from './load-generator.ts';
import type { McpServerPorts, McpWorkerData } from './mcp-protocol.ts';
import { median } from './stats.ts';
import { medianRatio, runRounds, startServerWorker, targetFigures, warmUp, type Measured, type TargetLoad, type Timing } from './throughput-rounds.ts';

/** The same load as http-throughput's, so the figures compare across the two modules. */
const CONNECTIONS = 48;
const WARMUP_MS = 1000;
const DURATION_MS = 3000;
const FIRST_WARMUP_MS = 3000;
const ROUNDS = 3;
const API_KEY = 'tg_bench_0123456789abcdef0123456789abcdef';
export const TEXT = 'hello from the benchmark';

type TargetName = 'direct' | 'direct_mcpserver' | 'direct_docs' | 'mcp' | 'mcp_modern' | 'mcp_plain' | 'dispatch';
/** Reversed every other round; the pairs the ratios compare sit next to each other. */
const ORDER: TargetName[] = ['direct_docs', 'direct_mcpserver', 'direct', 'mcp', 'dispatch', 'mcp_modern', 'mcp_plain'];
const TIMING: Timing = { connections: CONNECTIONS, warmupMs: WARMUP_MS, durationMs: DURATION_MS };

/**
 * A raw JSON-RPC `tools/call`, as a client sends it once connected. A stateless server (no
 * session id generator) checks neither a session nor a prior `initialize`, so the call alone is
 * the whole exchange; a client pays `initialize` once per connection, not per call. Every body is
 * serialized once, its ids spliced in per request (jsonTemplate): the generator shares the cores
 * with the servers, so each target must cost it the same.
 */
const toolsCall = (meta?: (slot: (index: number) => string) => Record<string, unknown>) =>
  jsonTemplate((slot) => ({ jsonrpc: '2.0', id: slot(0), method: 'tools/call', params: { name: 'echo', arguments: { text: TEXT }, ...(meta ? { _meta: meta(slot) } : {}) } }));

/**
 * Each connection is one agent thread with fresh call ids, as in http-throughput: toolgate reads
 * both from `_meta` (MCP has neither); the SDK server ignores them, so both get the same bytes.
 */
const threadedBody = toolsCall((slot) => ({ 'toolgate/thread_id': slot(1), 'toolgate/call_id': slot(2) }));
const threadedCall = (connection: number, sequence: number) => threadedBody(sequence, `bench-${connection}`, `call_${sequence}`);
/** What a plain MCP client sends: toolgate puts every call in the principal's one thread, under a fresh call id (each call is its own). */
const plainBody = toolsCall();
const plainCall = (_connection: number, sequence: number) => plainBody(sequence);
/** The same call as a 2026-07-28 client sends it: the `_meta` envelope on the request, the standard headers (MODERN_HEADERS) beside it. */
const MODERN_ENVELOPE = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': {} };
const modernBody = toolsCall((slot) => ({ ...MODERN_ENVELOPE, 'toolgate/thread_id': slot(1), 'toolgate/call_id': slot(2) }));
const modernCall = (connection: number, sequence: number) => modernBody(sequence, `bench-${connection}`, `call_${sequence}`);
const dispatchBody = jsonTemplate((slot) => ({ thread_id: slot(0), calls: [{ call_id: slot(1), name: 'echo', arguments: { text: TEXT } }] }));
const dispatchCall = (connection: number, sequence: number) => dispatchBody(`bench-${connection}`, `call_${sequence}`);

/**
 * The transport refuses a POST without both media types in `accept` (406) or a JSON
 * content-type (415, the generator's default). The version header is optional to the SDK
 * (checked when present, else 2025-03-26 assumed) but the spec has clients send it after
 * `initialize`, so it is sent.
 */
const MCP_HEADERS = { accept: 'application/json, text/event-stream', 'mcp-protocol-version': LATEST_PROTOCOL_VERSION };
const AUTH = { authorization: `Bearer ${API_KEY}` };
const MODERN_HEADERS = { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'echo' };

interface McpAnswer {
  error?: unknown;
  result?: { isError?: boolean; content?: { type?: string; text?: string }[] };
}

/** A JSON-RPC result (not an error) that is no tool error and carries the echoed text. */
export function echoedOverMcp(body: string): boolean {
  try {
    const answer = JSON.parse(body) as McpAnswer;
    const content = answer.result?.content?.[0];
    return answer.error === undefined && answer.result?.isError !== true && content?.type === 'text' && content.text === TEXT;
  } catch {
    return false;
  }
}

export function echoedOverDispatch(body: string): boolean {
  try {
    const result = (JSON.parse(body) as { results?: { status?: string; content?: string }[] }).results?.[0];
    return result?.status === 'ok' && result.content === TEXT;
  } catch {
    return false;
  }
}

function targetsFor(ports: McpServerPorts): Record<TargetName, TargetLoad> {
  const mcp = (port: number, body: TargetLoad['body'], auth: Record<string, string>): TargetLoad => ({ port, path: '/mcp', body, headers: { ...MCP_HEADERS, ...auth }, inspect: echoedOverMcp });
  return {
    direct: mcp(ports.directPort, threadedCall, {}),
    direct_mcpserver: mcp(ports.directMcpServerPort, threadedCall, {}),
    direct_docs: mcp(ports.directDocsPort, threadedCall, {}),
    mcp: mcp(ports.mcpGatewayPort, threadedCall, AUTH),
    mcp_modern: { port: ports.mcpGatewayPort, path: '/mcp', body: modernCall, headers: { ...MODERN_HEADERS, ...AUTH }, inspect: echoedOverMcp },
    mcp_plain: mcp(ports.mcpPlainGatewayPort, plainCall, AUTH),
    dispatch: { port: ports.dispatchGatewayPort, path: '/v1/dispatch', body: dispatchCall, headers: AUTH, inspect: echoedOverDispatch },
  };
}

/** One request outside the load, to prove each route answers what we think before counting it. */
async function checkTarget(name: TargetName, load: TargetLoad): Promise<void> {
  const body = typeof load.body === 'string' ? load.body : load.body(CONNECTIONS, 0); // a thread no connection uses
  const response = await fetch(`http://127.0.0.1:${load.port}${load.path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...load.headers }, body });
  const text = await response.text();
  if (response.status !== 200 || !load.inspect?.(text)) throw new Error(`${name} answered ${response.status}: ${text}`);
}

const badAnswers = (name: TargetName, runs: Measured[]): Figures => ({ [`${name}_bad_answers`]: runs.reduce((sum, r) => sum + r.rejected, 0) });

/** CPU µs per request of `a` minus `b`, median over rounds: what one side adds, whatever the req/s. */
const addedCpuUs = (rounds: Record<TargetName, Measured>[], a: TargetName, b: TargetName) =>
  round(median(rounds.map((r) => r[a].serverCpuUsPerRequest - r[b].serverCpuUsPerRequest)));

function ratioFigures(rounds: Record<TargetName, Measured>[]): Figures {
  return {
    mcp_to_direct_ratio: round(medianRatio(rounds, 'mcp', 'direct')),
    mcp_to_direct_ratio_runs: rounds.map((r) => round(r.mcp.rps / r.direct.rps)).join(' / '),
    mcp_to_direct_mcpserver_ratio: round(medianRatio(rounds, 'mcp', 'direct_mcpserver')),
    mcp_to_direct_docs_ratio: round(medianRatio(rounds, 'mcp', 'direct_docs')),
    mcp_to_dispatch_ratio: round(medianRatio(rounds, 'mcp', 'dispatch')),
    mcp_modern_to_dispatch_ratio: round(medianRatio(rounds, 'mcp_modern', 'dispatch')),
    mcp_modern_to_dispatch_ratio_runs: rounds.map((r) => round(r.mcp_modern.rps / r.dispatch.rps)).join(' / '),
    mcp_to_dispatch_ratio_runs: rounds.map((r) => round(r.mcp.rps / r.dispatch.rps)).join(' / '),
    mcp_plain_to_mcp_ratio: round(medianRatio(rounds, 'mcp_plain', 'mcp')),
    // What the server's own CPU cost predicts for the ratio, were nothing else competing for the cores.
    cpu_cost_ratio: round(median(rounds.map((r) => r.direct.serverCpuUsPerRequest / r.mcp.serverCpuUsPerRequest))),
    mcp_minus_direct_cpu_us: addedCpuUs(rounds, 'mcp', 'direct'),
    mcp_minus_dispatch_cpu_us: addedCpuUs(rounds, 'mcp', 'dispatch'),
    mcp_modern_minus_dispatch_cpu_us: addedCpuUs(rounds, 'mcp_modern', 'dispatch'),
    direct_mcpserver_minus_direct_cpu_us: addedCpuUs(rounds, 'direct_mcpserver', 'direct'),
    direct_docs_minus_direct_cpu_us: addedCpuUs(rounds, 'direct_docs', 'direct'),
  };
}

function roundFigures(rounds: Record<TargetName, Measured>[]): Figures {
  const figures: Figures = { connections: CONNECTIONS };
  for (const name of ORDER) Object.assign(figures, targetFigures(name, rounds.map((r) => r[name])), badAnswers(name, rounds.map((r) => r[name])));
  return {
    ...figures,
    ...ratioFigures(rounds),
    note:
      'toolgate adds per tools/call: API key auth (SHA-256, store lookup), tenant runtime, JSON Schema validation, governance, 3 hash-chained audit envelopes committed (memory store). ' +
      'direct: the SDK’s low-level Server; direct_mcpserver: McpServer + zod; direct_docs: the SDK example verbatim (a new Ajv per request); see bench/README.md. No budget.',
  };
}

export const mcpBench: BenchModule = {
  name: 'mcp',
  title: `MCP tools/call of echo: toolgate POST /mcp (2025-11-25 and 2026-07-28) vs the same tool on the MCP SDK alone (stateless, JSON responses), and vs POST /v1/dispatch; @hono/node-server in a worker thread, ${CONNECTIONS} keep-alive connections, ${DURATION_MS / 1000} s per run, median of ${ROUNDS} rounds (req/s)`,
  async run() {
    const workerData: McpWorkerData = { apiKey: API_KEY };
    const { worker, ports } = await startServerWorker<McpServerPorts>(new URL('./mcp-server-worker.ts', import.meta.url), workerData);
    try {
      const targets = targetsFor(ports);
      for (const name of ORDER) {
        await checkTarget(name, targets[name]);
        progress(`mcp: warming up ${name}`);
        await warmUp(targets[name], CONNECTIONS, FIRST_WARMUP_MS);
      }
      return roundFigures(await runRounds(worker, targets, ORDER, ROUNDS, TIMING, 'mcp'));
    } finally {
      await worker.terminate();
    }
  },
};
