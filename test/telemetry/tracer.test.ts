import { describe, expect, it } from 'vitest';
import { McpSessionPool } from '../../lib/registry/executors/mcp-session-pool.ts';
import { McpToolExecutor } from '../../lib/registry/executors/mcp.ts';
import { defineTool } from '../../lib/registry/definition.ts';
import { tracerFromEnv, parseKeyValues } from '../../lib/telemetry/config.ts';
import { samplerFromEnv } from '../../lib/telemetry/sampler.ts';
import { SpanKind, type FinishedSpan } from '../../lib/telemetry/span.ts';
import { formatTraceparent, newSpanId, newTraceId, parseTraceparent, parseTracestate } from '../../lib/telemetry/trace-context.ts';
import { Tracer } from '../../lib/telemetry/tracer.ts';
import { startTestServer } from '../helpers/http-server.ts';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const SPAN = '00f067aa0ba902b7';

describe('W3C trace context', () => {
  it('reads a well-formed traceparent, with its sampled flag', () => {
    expect(parseTraceparent(`00-${TRACE}-${SPAN}-01`)).toEqual({ traceId: TRACE, spanId: SPAN, sampled: true });
    expect(parseTraceparent(`00-${TRACE}-${SPAN}-00`)?.sampled).toBe(false);
    expect(parseTraceparent(`00-${TRACE}-${SPAN}-03`)?.sampled).toBe(true);
    // A later version may add fields after the flags: the first four are read.
    expect(parseTraceparent(`cc-${TRACE}-${SPAN}-01-what-comes-later`)).toEqual({ traceId: TRACE, spanId: SPAN, sampled: true });
    expect(formatTraceparent({ traceId: TRACE, spanId: SPAN, sampled: true })).toBe(`00-${TRACE}-${SPAN}-01`);
  });

  it('ignores anything malformed, never throwing', () => {
    const bad: unknown[] = [
      undefined, null, '', 'garbage', `00-${TRACE}-${SPAN}`, `00-${TRACE}-${SPAN}-1`, `00-${TRACE}-${SPAN}-01-`, `00-${TRACE.toUpperCase()}-${SPAN}-01`,
      `00-${'0'.repeat(32)}-${SPAN}-01`, `00-${TRACE}-${'0'.repeat(16)}-01`, `ff-${TRACE}-${SPAN}-01`, `0-${TRACE}-${SPAN}-01`, `00-${TRACE}-${SPAN}-01\r\nx-injected: 1`,
      `00_${TRACE}_${SPAN}_01`, `00-${TRACE}-${SPAN}-zz`, `00-${TRACE}-${SPAN}-01${'a'.repeat(600)}`, `cc-${TRACE}-${SPAN}-01-\u0000`, `00-${TRACE}-${SPAN}-01,00-${TRACE}-${SPAN}-01`,
    ];
    for (const header of bad) expect(parseTraceparent(header as string), String(header)).toBeUndefined();
  });

  it('keeps a tracestate only if every member is well formed', () => {
    expect(parseTracestate('rojo=00f067aa0ba902b7,congo=t61rcWkgMzE')).toBe('rojo=00f067aa0ba902b7,congo=t61rcWkgMzE');
    expect(parseTracestate('tenant@vendor=value')).toBe('tenant@vendor=value');
    for (const bad of ['=x', 'UPPER=x', 'k=', 'k=a,b', 'k=v\nx', Array.from({ length: 33 }, (_, i) => `k${i}=v`).join(','), `k=${'v'.repeat(600)}`]) {
      expect(parseTracestate(bad), bad).toBeUndefined();
    }
    expect(parseTraceparent(`00-${TRACE}-${SPAN}-01`, 'BAD STATE')).toEqual({ traceId: TRACE, spanId: SPAN, sampled: true });
  });

  it('makes random non-zero ids of the right length', () => {
    const ids = new Set(Array.from({ length: 200 }, () => newTraceId()));
    expect(ids.size).toBe(200);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{32}$/);
    expect(newSpanId()).toMatch(/^[0-9a-f]{16}$/);
  });
});

describe('samplers (OTEL_TRACES_SAMPLER)', () => {
  const parent = (sampled: boolean) => ({ traceId: TRACE, spanId: SPAN, sampled });
  it('always_on, always_off, and the parent-based ones keep the caller\'s decision', () => {
    expect(samplerFromEnv('always_on', undefined)(parent(false), TRACE)).toBe(true);
    expect(samplerFromEnv('always_off', undefined)(parent(true), TRACE)).toBe(false);
    expect(samplerFromEnv(undefined, undefined)(parent(false), TRACE)).toBe(false);
    expect(samplerFromEnv(undefined, undefined)(undefined, TRACE)).toBe(true);
    expect(samplerFromEnv('parentbased_always_off', undefined)(parent(true), TRACE)).toBe(true);
    expect(samplerFromEnv('parentbased_always_off', undefined)(undefined, TRACE)).toBe(false);
  });
  it('traceidratio samples about the given share, the same way for the same trace id', () => {
    const sampler = samplerFromEnv('traceidratio', '0.25');
    const ids = Array.from({ length: 4000 }, () => newTraceId());
    const share = ids.filter((id) => sampler(undefined, id)).length / ids.length;
    expect(share).toBeGreaterThan(0.2);
    expect(share).toBeLessThan(0.3);
    for (const id of ids.slice(0, 50)) expect(sampler(undefined, id)).toBe(sampler(undefined, id));
    expect(() => samplerFromEnv('traceidratio', '2')).toThrow(/OTEL_TRACES_SAMPLER_ARG/);
    expect(() => samplerFromEnv('jaeger_remote', undefined)).toThrow(/not supported/);
  });
});

describe('the tracer\'s queue', () => {
  function recordingTracer(options: { maxQueue?: number; maxBatch?: number; fail?: boolean } = {}) {
    const exported: FinishedSpan[][] = [];
    const lost: number[] = [];
    const tracer = new Tracer({
      exporter: {
        export: async (body: string, count: number) => {
          exported.push(JSON.parse(body).resourceSpans[0].scopeSpans[0].spans);
          if (options.fail) throw new Error('collector down');
          expect(count).toBe(exported.at(-1)!.length);
          return true;
        },
        failed: (count: number) => void lost.push(count),
      },
      sampler: () => true,
      resource: { 'service.name': 'test' },
      schedule: 'request',
      captureContent: false,
      maxQueue: options.maxQueue,
      maxBatch: options.maxBatch,
      log: () => {},
    });
    return { tracer, exported, lost };
  }

  it('drops the oldest spans beyond its cap, and says how many', async () => {
    const { tracer, exported, lost } = recordingTracer({ maxQueue: 8 });
    for (let i = 0; i < 20; i++) tracer.startSpan(`span-${i}`, { kind: SpanKind.INTERNAL }).end();
    expect(tracer.queued).toBeLessThanOrEqual(8);
    await tracer.flush();
    const names = exported.flat().map((span) => (span as unknown as { name: string }).name);
    expect(names.at(-1)).toBe('span-19');
    expect(names).not.toContain('span-0');
    expect(lost.reduce((a, b) => a + b, 0) + names.length).toBe(20);
  });

  it('exports in batches, and an exporter that throws loses only its batch', async () => {
    const { tracer, exported } = recordingTracer({ maxBatch: 3, fail: true });
    for (let i = 0; i < 7; i++) tracer.startSpan(`span-${i}`, { kind: SpanKind.INTERNAL }).end();
    await expect(tracer.flush()).resolves.toBeUndefined();
    expect(exported.map((batch) => batch.length)).toEqual([3, 3, 1]);
    expect(tracer.queued).toBe(0);
  });

  it('ends a span once, and an unsampled span records nothing but keeps its ids for propagation', async () => {
    const { tracer, exported } = recordingTracer();
    const span = tracer.startSpan('once', { kind: SpanKind.INTERNAL });
    span.end();
    span.end();
    const dropped = new Tracer({ exporter: { export: async () => true, failed: () => {} }, sampler: () => false, resource: {}, schedule: 'request', captureContent: false, log: () => {} });
    const unsampled = dropped.startSpan('dropped', { kind: SpanKind.INTERNAL, parent: { traceId: TRACE, spanId: SPAN, sampled: false } });
    unsampled.setAttribute('a', 1).end();
    expect(unsampled.traceparent).toMatch(new RegExp(`^00-${TRACE}-[0-9a-f]{16}-00$`));
    expect(dropped.queued).toBe(0);
    await tracer.flush();
    expect(exported.flat()).toHaveLength(1);
  });
});

describe('configuration from the standard variables', () => {
  const log = () => {};
  it('is off without an endpoint, disabled, or with exporter none; on with either endpoint variable', () => {
    expect(tracerFromEnv({}, { schedule: 'request', log })).toBeUndefined();
    expect(tracerFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_SDK_DISABLED: 'TRUE' }, { schedule: 'request', log })).toBeUndefined();
    expect(tracerFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_TRACES_EXPORTER: 'none' }, { schedule: 'request', log })).toBeUndefined();
    expect(tracerFromEnv({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c:4318/custom' }, { schedule: 'request', log })).toBeDefined();
  });

  it('sends to /v1/traces under the general endpoint and to the traces endpoint as is', async () => {
    const urls: string[] = [];
    const fetchSpy = (async (input: RequestInfo | URL) => {
      urls.push(String(input));
      return new Response('{}');
    }) as typeof fetch;
    for (const env of [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' }, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://x:1', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/custom/path' }]) {
      const tracer = tracerFromEnv(env, { schedule: 'request', log, fetch: fetchSpy })!;
      tracer.startSpan('s', { kind: SpanKind.INTERNAL }).end();
      await tracer.flush();
    }
    expect(urls).toEqual(['http://collector:4318/v1/traces', 'http://collector:4318/custom/path']);
  });

  it('reads header lists, skips a malformed entry without repeating it, and never stops the gateway for a bad setting', () => {
    const problems: string[] = [];
    expect(parseKeyValues('api-key=abc%3D%3D, x-team = blue ,broken,=nokey', (p) => problems.push(p), 'OTEL_EXPORTER_OTLP_HEADERS')).toEqual({ 'api-key': 'abc==', 'x-team': 'blue' });
    expect(problems).toHaveLength(2);
    expect(problems.join(' ')).not.toContain('broken');
    const logged: string[] = [];
    const tracer = tracerFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_TRACES_SAMPLER: 'nonsense', OTEL_BSP_MAX_QUEUE_SIZE: '-3' }, { schedule: 'request', log: (_e, fields) => logged.push(String(fields.problem)) });
    expect(tracer).toBeDefined();
    expect(logged.join('\n')).toMatch(/nonsense/);
    expect(tracerFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'file:///etc/passwd' }, { schedule: 'request', log })).toBeUndefined();
  });
});

describe('the mcp executor\'s trace context', () => {
  it('sends the call\'s traceparent as a header and in params._meta, replacing a manifest\'s own, and keeps sharing the pooled session', async () => {
    const upstream = await startTestServer((request, response) => {
      const message = JSON.parse(request.body || '{}') as { id?: number; method?: string };
      if (message.id === undefined) return void response.writeHead(202).end();
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result: { content: [{ type: 'text', text: 'found' }] } }));
    });
    let handshakes = 0;
    const pool = new McpSessionPool(async () => {
      handshakes++;
      return { sessionId: undefined, protocolVersion: '2025-06-18' };
    });
    const definition = defineTool({ name: 'search', description: 'Searches.', input_schema: { type: 'object' } });
    const executor = new McpToolExecutor(definition, { url: `${upstream.url}/mcp`, tool: 'search', headers: { Traceparent: `00-${'1'.repeat(32)}-${'2'.repeat(16)}-01`, 'x-team': 'blue' } }, { pool, fetch: (input, init) => fetch(input, init) });
    const context = (traceparent?: string) => ({ signal: AbortSignal.timeout(5000), call_id: 'c1', thread_id: 't', tenant: 'acme', principal: 'p', env: {}, ...(traceparent ? { traceparent } : {}) });
    try {
      const first = `00-${TRACE}-${SPAN}-01`;
      const second = `00-${TRACE}-a1b2c3d4e5f60718-01`;
      await executor.execute({ q: 'x' }, context(first));
      await executor.execute({ q: 'y' }, context(second));
      await executor.execute({ q: 'z' }, context());
      const calls = upstream.requests.filter((request) => request.body.includes('tools/call'));
      expect(calls.map((request) => request.headers.traceparent)).toEqual([first, second, `00-${'1'.repeat(32)}-${'2'.repeat(16)}-01`]);
      expect(calls.map((request) => JSON.parse(request.body).params._meta?.traceparent)).toEqual([first, second, undefined]);
      expect(calls.every((request) => request.headers['x-team'] === 'blue')).toBe(true);
      expect(handshakes).toBe(1);
    } finally {
      await upstream.close();
    }
  });
});
