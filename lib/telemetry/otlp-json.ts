import { unixNano, type AttributeValue, type Attributes, type FinishedSpan } from './span.ts';

/**
 * The OTLP/HTTP JSON encoding of an ExportTraceServiceRequest (opentelemetry-proto's
 * specification, "JSON Protobuf Encoding"): field names in lowerCamelCase, trace and span ids
 * as hex strings, enums as numbers, 64-bit integers and times as decimal strings.
 */

type AnyValue = { stringValue: string } | { boolValue: boolean } | { intValue: string } | { doubleValue: number };

function anyValue(value: AttributeValue): AnyValue {
  if (typeof value === 'string') return { stringValue: value };
  if (typeof value === 'boolean') return { boolValue: value };
  return Number.isInteger(value) ? { intValue: String(value) } : { doubleValue: value };
}

function keyValues(attributes: Attributes): { key: string; value: AnyValue }[] {
  return Object.entries(attributes).map(([key, value]) => ({ key, value: anyValue(value) }));
}

function encodeSpan(span: FinishedSpan) {
  return {
    traceId: span.context.traceId,
    spanId: span.context.spanId,
    ...(span.context.traceState ? { traceState: span.context.traceState } : {}),
    ...(span.parentSpanId ? { parentSpanId: span.parentSpanId } : {}),
    // W3C trace flags: the spans exported are the sampled ones.
    flags: 1,
    name: span.name,
    kind: span.kind,
    startTimeUnixNano: unixNano(span.startMs),
    endTimeUnixNano: unixNano(span.endMs),
    attributes: keyValues(span.attributes),
    ...(span.links.length ? { links: span.links.map((link) => ({ traceId: link.traceId, spanId: link.spanId })) } : {}),
    status: span.status,
  };
}

/** One request body: the spans under this process's resource and the instrumentation scope. */
export function encodeTraces(resource: Attributes, scope: { name: string; version: string }, spans: readonly FinishedSpan[]): string {
  return JSON.stringify({
    resourceSpans: [{ resource: { attributes: keyValues(resource) }, scopeSpans: [{ scope, spans: spans.map(encodeSpan) }] }],
  });
}
