import { Hono, type ExecutionContext } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deferFor } from '../../lib/http/defer.ts';
import { tracingMiddleware } from '../../lib/http/tracing.ts';
import { tracerFromEnv } from '../../lib/telemetry/config.ts';
import { SpanKind, type Span } from '../../lib/telemetry/span.ts';
import { startOtlpReceiver } from './otlp-receiver.ts';

/**
 * Workers export a request's spans through waitUntil when its response is ready. Work deferred
 * past the response (a call run once Slack's approval is acknowledged) ends its spans later: they
 * must leave with that work, not wait in the queue for a next request that may never come.
 */
describe('spans ended by deferred work (Workers)', () => {
  let receiver: Awaited<ReturnType<typeof startOtlpReceiver>>;
  beforeAll(async () => {
    receiver = await startOtlpReceiver();
  });
  afterAll(async () => {
    await receiver?.close();
  });

  it('are exported once the work settles, within the waitUntil the runtime keeps alive', async () => {
    const tracer = tracerFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url }, { schedule: 'request', log: () => {} })!;
    const app = new Hono<{ Variables: { span?: Span } }>();
    app.use(tracingMiddleware(tracer));
    app.post('/slack/interactions', (c) => {
      const parent = c.get('span')!;
      const approvedCall = new Promise((settled) => setTimeout(settled, 20)).then(() => tracer.startChild(parent, 'execute_tool deploy', SpanKind.INTERNAL).end());
      deferFor(c)!(approvedCall);
      return c.text('acknowledged');
    });
    const handed: Promise<unknown>[] = [];
    const context = { waitUntil: (work: Promise<unknown>) => handed.push(work), passThroughOnException() {}, props: {} } as unknown as ExecutionContext;

    const response = await app.fetch(new Request('http://gateway.test/slack/interactions', { method: 'POST' }), {}, context);
    expect(await response.text()).toBe('acknowledged');
    // What the runtime does after the response: keep the isolate until every waitUntil settles.
    for (let settled = 0; settled < handed.length; settled++) await handed[settled];

    const names = receiver.spans().map((span) => span.name);
    expect(names).toContain('POST /slack/interactions');
    expect(names).toContain('execute_tool deploy');
    expect(tracer.queued).toBe(0);
  });
});
