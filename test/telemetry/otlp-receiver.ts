import { startTestServer, type TestServer } from '../helpers/http-server.ts';

/** One span as the receiver decoded it from OTLP/HTTP JSON, attributes flattened to values. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: Record<string, string | number | boolean>;
  status: { code: number; message?: string };
  links?: { traceId: string; spanId: string }[];
  traceState?: string;
}

type AnyValue = { stringValue?: string; intValue?: string; boolValue?: boolean; doubleValue?: number };

function valueOf(value: AnyValue): string | number | boolean {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.doubleValue !== undefined) return value.doubleValue;
  throw new Error(`unexpected OTLP value ${JSON.stringify(value)}`);
}

const flatten = (attributes: { key: string; value: AnyValue }[] = []) => Object.fromEntries(attributes.map(({ key, value }) => [key, valueOf(value)]));

/**
 * A local OTLP/HTTP receiver on 127.0.0.1: it takes POST /v1/traces with a JSON body, as a
 * collector does, and keeps the decoded spans, the resources and the raw bodies.
 */
export async function startOtlpReceiver(): Promise<TestServer & { spans(): ReceivedSpan[]; resources(): Record<string, unknown>[]; bodies(): string[]; reset(): void }> {
  const server = await startTestServer((request, response) => {
    const ok = request.method === 'POST' && request.url === '/v1/traces' && (request.headers['content-type'] ?? '').startsWith('application/json');
    response.writeHead(ok ? 200 : 400, { 'content-type': 'application/json' }).end(ok ? '{}' : '{"error":"not a JSON trace export"}');
  });
  const exports = () => server.requests.filter((request) => request.url === '/v1/traces');
  const decoded = () => exports().map((request) => JSON.parse(request.body) as { resourceSpans: { resource: { attributes: { key: string; value: AnyValue }[] }; scopeSpans: { spans: (Omit<ReceivedSpan, 'attributes'> & { attributes: { key: string; value: AnyValue }[] })[] }[] }[] });
  return {
    ...server,
    spans: () => decoded().flatMap((body) => body.resourceSpans.flatMap((rs) => rs.scopeSpans.flatMap((ss) => ss.spans.map((span) => ({ ...span, attributes: flatten(span.attributes) }))))),
    resources: () => decoded().flatMap((body) => body.resourceSpans.map((rs) => flatten(rs.resource.attributes))),
    bodies: () => exports().map((request) => request.body),
    reset: () => void server.requests.splice(0),
  };
}
