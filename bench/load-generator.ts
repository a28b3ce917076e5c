import { connect, type Socket } from 'node:net';

/** The JSON body of one request: the same text every time, or made per connection and request. */
export type BodySource = string | ((connection: number, sequence: number) => string);

export interface LoadOptions {
  port: number;
  path: string;
  body: BodySource;
  headers: Record<string, string>;
  connections: number;
  warmupMs: number;
  durationMs: number;
  /** Called right before and right after the measured window (e.g. to read the server's CPU time). */
  onWindow?: (edge: 'start' | 'end') => Promise<void>;
  /**
   * Judges each 2xx answer's body in the measured window (false: a wrong answer, counted in
   * `rejected`). A 200 is not enough where errors travel inside the body, as JSON-RPC's do.
   * Without it, bodies are never decoded.
   */
  inspect?: (body: string) => boolean;
}

export interface LoadResult {
  requests: number;
  non2xx: number;
  /** 2xx answers `inspect` refused (0 without `inspect`). */
  rejected: number;
  rps: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
}

interface ConnectionHooks {
  request(sequence: number): Buffer;
  onResponse(status: number, sentAt: number, body: () => string): void;
  running(): boolean;
  fail(error: Error): void;
}

const HEADER_END = Buffer.from('\r\n\r\n');
const CONTENT_LENGTH = /\r\ncontent-length:\s*(\d+)/i;

/**
 * A closed-loop HTTP/1.1 load generator on raw keep-alive sockets: each connection sends its
 * next request as soon as the previous answer is complete. Raw sockets with a minimal parser
 * cost a fraction of node:http's client, so the generator is not the bottleneck
 * (http-throughput reports both threads' event-loop utilisation to show it).
 */
export async function generateLoad(options: LoadOptions): Promise<LoadResult> {
  const latencies: number[] = [];
  const failures: Error[] = [];
  const state = { measuring: false, running: true, requests: 0, non2xx: 0, rejected: 0 };
  const { inspect } = options;
  const hooksFor = (connection: number): ConnectionHooks => ({
    request: requestBuilder(options, connection),
    onResponse(status, sentAt, body) {
      if (!state.measuring) return;
      // Latency first: judging the body is the generator's work, not the server's.
      latencies.push(performance.now() - sentAt);
      state.requests++;
      if (status < 200 || status > 299) state.non2xx++;
      else if (inspect && !inspect(body())) state.rejected++;
    },
    running: () => state.running,
    fail: (error) => failures.push(error),
  });
  const sockets = await Promise.all(Array.from({ length: options.connections }, (_, i) => openConnection(options.port, hooksFor(i))));
  await sleep(options.warmupMs);
  await options.onWindow?.('start');
  state.measuring = true;
  const start = performance.now();
  await sleep(options.durationMs);
  state.measuring = false;
  const elapsedMs = performance.now() - start;
  await options.onWindow?.('end');
  state.running = false;
  for (const socket of sockets) socket.destroy();
  if (failures.length > 0) throw new Error(`load generator: ${failures.length} connection(s) failed, first: ${failures[0].message}`);
  return { requests: state.requests, non2xx: state.non2xx, rejected: state.rejected, rps: (state.requests / elapsedMs) * 1000, ...latencyPercentiles(latencies) };
}

function latencyPercentiles(latencies: number[]): { latencyP50Ms: number; latencyP99Ms: number } {
  latencies.sort((a, b) => a - b);
  const at = (p: number) => latencies[Math.min(latencies.length - 1, Math.ceil((p / 100) * latencies.length) - 1)] ?? NaN;
  return { latencyP50Ms: at(50), latencyP99Ms: at(99) };
}

/**
 * A fixed body is encoded once; a generated one per request (a few µs, on the generator's thread).
 * The header lines are joined once, so a target with more headers costs the generator no more per
 * request than one with fewer: only the Content-Length line is written per request.
 */
function requestBuilder(options: LoadOptions, connection: number): (sequence: number) => Buffer {
  const headers = { host: `127.0.0.1:${options.port}`, 'content-type': 'application/json', ...options.headers };
  const head = `POST ${options.path} HTTP/1.1\r\n${Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join('')}content-length: `;
  const encode = (body: string) => Buffer.from(`${head}${Buffer.byteLength(body)}\r\n\r\n${body}`);
  const source = options.body;
  if (typeof source === 'string') {
    const fixed = encode(source);
    return () => fixed;
  }
  return (sequence) => encode(source(connection, sequence));
}

/**
 * A JSON body serialized once, with the values that change per request spliced into it: every
 * target pays the same few string joins per request, however deep its body is, so no target's
 * throughput carries the generator's cost of building a bigger body. `shape` places `slot(i)`
 * where the i-th value goes; a value is spliced as JSON (a string quoted and escaped, a number bare).
 */
export function jsonTemplate(shape: (slot: (index: number) => string) => unknown): (...values: Array<string | number>) => string {
  const marker = (index: number) => `\u0000slot${index}\u0000`;
  // [text, slot index, text, slot index, ..., text]
  const pieces = JSON.stringify(shape(marker)).split(/"\\u0000slot(\d+)\\u0000"/);
  const texts = pieces.filter((_, i) => i % 2 === 0);
  const slots = pieces.filter((_, i) => i % 2 === 1).map(Number);
  return (...values) => {
    let body = texts[0];
    for (let i = 0; i < slots.length; i++) body += JSON.stringify(values[slots[i]]) + texts[i + 1];
    return body;
  };
}

function openConnection(port: number, hooks: ConnectionHooks): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port, noDelay: true });
    let pending: Buffer = Buffer.alloc(0);
    let sentAt = 0;
    let sequence = 0;
    const send = () => {
      sentAt = performance.now();
      socket.write(hooks.request(sequence++));
    };
    socket.on('data', (chunk: Buffer) => {
      pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
      let parsed;
      try {
        parsed = parseResponse(pending);
      } catch (error) {
        hooks.fail(error as Error);
        socket.destroy();
        return;
      }
      if (!parsed) return;
      const answer = pending;
      pending = pending.subarray(parsed.length);
      hooks.onResponse(parsed.status, sentAt, () => answer.toString('utf8', parsed.bodyStart, parsed.length));
      if (hooks.running()) send();
    });
    socket.once('connect', () => {
      resolve(socket);
      send();
    });
    socket.on('error', (error) => {
      reject(error);
      if (hooks.running()) hooks.fail(error);
    });
  });
}

/** Status, body offset and total length of the first complete response in `data`, or undefined if it is still arriving. */
function parseResponse(data: Buffer): { status: number; bodyStart: number; length: number } | undefined {
  const headerEnd = data.indexOf(HEADER_END);
  if (headerEnd < 0) return undefined;
  const head = data.toString('latin1', 0, headerEnd);
  const length = CONTENT_LENGTH.exec(head);
  // Hono's JSON answers always carry Content-Length; a chunked answer would need a real parser.
  if (!length) throw new Error(`response without Content-Length: ${head.split('\r\n')[0]}`);
  const bodyStart = headerEnd + HEADER_END.length;
  const total = bodyStart + Number(length[1]);
  if (data.length < total) return undefined;
  return { status: Number(head.slice(9, 12)), bodyStart, length: total };
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
