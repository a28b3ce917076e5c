import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tracerFromEnv } from '../../lib/telemetry/config.ts';
import { SpanKind } from '../../lib/telemetry/span.ts';
import { startOtlpReceiver } from '../telemetry/otlp-receiver.ts';

const CREDENTIAL = 'collector-credential-in-url-0001';

type Logged = { event: string; fields: Record<string, unknown> };

/** The OTEL_* variables are the operator's, but a value they did not expect must neither leak a credential nor break tracing. */
describe('attack: OTEL_* values', () => {
  let receiver: Awaited<ReturnType<typeof startOtlpReceiver>>;
  beforeAll(async () => {
    receiver = await startOtlpReceiver();
  });
  afterAll(async () => {
    await receiver?.close();
  });

  async function exportOne(env: Record<string, string>): Promise<Logged[]> {
    const logged: Logged[] = [];
    const tracer = tracerFromEnv(env, { schedule: 'interval', log: (event, fields) => logged.push({ event, fields }) });
    if (tracer) {
      tracer.startSpan('probe', { kind: SpanKind.INTERNAL }).end();
      await tracer.shutdown();
    }
    return logged;
  }

  it('never logs a credential written into the endpoint URL (user info, query)', async () => {
    const port = new URL(receiver.url).port;
    const cases: Record<string, string>[] = [
      { OTEL_EXPORTER_OTLP_ENDPOINT: `http://otel:${CREDENTIAL}@127.0.0.1:${port}` },
      { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `grpc://127.0.0.1:4317/?api_key=${CREDENTIAL}` },
      { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `not a url ${CREDENTIAL}` },
    ];
    for (const env of cases) {
      const logged = await exportOne(env);
      // The operator hears why tracing does not work ...
      expect(logged.length, JSON.stringify(env)).toBeGreaterThan(0);
      // ... without the credential being written to the logs.
      expect(JSON.stringify(logged), JSON.stringify(env)).not.toContain(CREDENTIAL);
    }
  });

  it('keeps exporting with a huge OTEL_EXPORTER_OTLP_TIMEOUT, and says a schedule delay beyond the timer range is ignored', async () => {
    receiver.reset();
    const logged = await exportOne({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_TIMEOUT: '100000000000000000000' });
    expect(receiver.spans().map((span) => span.name)).toEqual(['probe']);
    expect(logged.filter((entry) => entry.event === 'telemetry.export_failed')).toEqual([]);

    // Node turns a timer delay beyond 2^31-1 ms into 1 ms: an export loop every millisecond.
    const delayed = await exportOne({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_BSP_SCHEDULE_DELAY: '10000000000' });
    expect(delayed.some((entry) => entry.event === 'telemetry.config_ignored' && String(entry.fields.problem).includes('OTEL_BSP_SCHEDULE_DELAY'))).toBe(true);
  });
});
