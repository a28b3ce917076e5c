import type { Context, MiddlewareHandler } from 'hono';
import { routePath } from 'hono/route';
import { DEFERRED_SPANS, deferFor } from './defer.ts';
import { bounded, SpanKind, type Span } from '../telemetry/span.ts';
import { parseTraceparent, type SpanContext } from '../telemetry/trace-context.ts';
import type { Tracer } from '../telemetry/tracer.ts';

const KNOWN_METHODS = new Set(['CONNECT', 'DELETE', 'GET', 'HEAD', 'OPTIONS', 'PATCH', 'POST', 'PUT', 'TRACE']);

/** Requests that are not the gateway's work (probes, scrapes): no span. */
const UNTRACED = new Set(['/healthz', '/metrics']);

/**
 * An HTTP server span per request (`{method} {route}`), continuing the caller's `traceparent`
 * when it is well formed (anything else starts a new trace). Routes read it as `c.get('span')`
 * to parent their calls' spans. When the response is ready the span ends and, on the `request`
 * schedule, the queued spans are exported in the background (Workers: waitUntil).
 */
export function tracingMiddleware(tracer: Tracer): MiddlewareHandler<{ Variables: { span?: Span; [DEFERRED_SPANS]?: () => Promise<void> | undefined } }> {
  return async (c, next) => {
    const path = c.req.path;
    if (UNTRACED.has(path)) return next();
    // The semantic conventions' rule: a method outside the known set is `_OTHER` (any token would be a new span name).
    const method = KNOWN_METHODS.has(c.req.method) ? c.req.method : '_OTHER';
    const parent = parseTraceparent(c.req.header('traceparent'), c.req.header('tracestate'));
    const span = tracer.startSpan(method === '_OTHER' ? 'HTTP' : method, {
      kind: SpanKind.SERVER,
      parent,
      attributes: { 'http.request.method': method, 'url.path': bounded(path), 'url.scheme': new URL(c.req.url).protocol.replace(':', '') },
    });
    c.set('span', span);
    c.set(DEFERRED_SPANS, () => tracer.exportRequestSpans());
    try {
      await next();
    } finally {
      endServerSpan(c, span);
      tracer.requestEnded(deferFor(c));
    }
  };
}

/** The request's span context, when tracing is on: what a call run for this request (an approval's decision) is parented to. */
export function requestTrace(c: Context): SpanContext | undefined {
  return (c.get('span') as Span | undefined)?.context;
}

function endServerSpan(c: Context, span: Span): void {
  const route = routePath(c, -1);
  if (route && route !== '*' && !route.endsWith('/*')) {
    span.name = `${span.name} ${route}`;
    span.setAttribute('http.route', route);
  }
  const status = c.res.status;
  span.setAttribute('http.response.status_code', status);
  const principal = (c.get('principal') as { tenant?: string } | undefined)?.tenant;
  if (principal) span.setAttribute('toolgate.tenant', principal);
  if (status >= 500) span.setAttribute('error.type', String(status)).setError(String(status));
  span.end();
}
