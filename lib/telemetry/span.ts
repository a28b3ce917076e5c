import { formatTraceparent, type SpanContext } from './trace-context.ts';

/** OTLP's span kinds (the numbers are the protocol's). */
export const SpanKind = { INTERNAL: 1, SERVER: 2, CLIENT: 3 } as const;
export type SpanKindValue = (typeof SpanKind)[keyof typeof SpanKind];

/** OTLP's status codes: unset (the default, success included), error. */
export const SpanStatus = { UNSET: 0, ERROR: 2 } as const;

export type AttributeValue = string | number | boolean;
export type Attributes = Record<string, AttributeValue>;

/** A link to another span (MCP: the HTTP request's span, when the call names its own parent). */
export interface SpanLink {
  traceId: string;
  spanId: string;
}

/** Wall-clock now in milliseconds since the epoch, with the sub-millisecond part where the runtime has it. */
export function epochMs(): number {
  // workerd has no time origin (and a clock that moves only with I/O): the epoch clock there.
  return performance.timeOrigin > 0 ? performance.timeOrigin + performance.now() : Date.now();
}

/** Epoch milliseconds as the decimal nanoseconds string OTLP/JSON carries (at export, off the hot path). */
export function unixNano(ms: number): string {
  const whole = Math.floor(ms);
  const nanos = Math.min(999_999, Math.round((ms - whole) * 1e6));
  return `${whole}${String(nanos).padStart(6, '0')}`;
}

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/**
 * A span name's target from a name the model chose: a tool name as manifests allow them, or
 * nothing (an unknown tool called by junk must not make a span name of any length or shape).
 */
export function nameTarget(operation: string, name: string): string {
  return TOOL_NAME.test(name) ? `${operation} ${name}` : operation;
}

/** An attribute value from the caller's input, cut to a sane length. */
export const bounded = (text: string, max = 200): string => (text.length > max ? `${text.slice(0, max)}…` : text);

/** What a span hands to its tracer when it ends. */
export interface FinishedSpan {
  readonly context: SpanContext;
  readonly parentSpanId?: string;
  readonly name: string;
  readonly kind: SpanKindValue;
  readonly startMs: number;
  readonly endMs: number;
  readonly attributes: Attributes;
  readonly status: { code: number; message?: string };
  readonly links: SpanLink[];
}

/**
 * One operation being timed. A span that is not sampled still has ids (its children and the
 * requests it sends continue the trace) but records nothing and is never exported.
 */
export class Span {
  readonly context: SpanContext;
  readonly parentSpanId: string | undefined;
  /** Known better once the work is done (an HTTP server span learns its route): see rename. */
  name: string;
  readonly kind: SpanKindValue;
  readonly attributes: Attributes;
  readonly links: SpanLink[] = [];
  #status: { code: number; message?: string } = { code: SpanStatus.UNSET };
  readonly #start = epochMs();
  readonly #onEnd: ((span: FinishedSpan) => void) | undefined;
  #ended = false;

  constructor(name: string, kind: SpanKindValue, context: SpanContext, parentSpanId: string | undefined, attributes: Attributes, onEnd: ((span: FinishedSpan) => void) | undefined) {
    this.name = name;
    this.kind = kind;
    this.context = context;
    this.parentSpanId = parentSpanId;
    this.attributes = attributes;
    this.#onEnd = context.sampled ? onEnd : undefined;
  }

  /** The `traceparent` header naming this span as the parent of what a request does. */
  get traceparent(): string {
    return formatTraceparent(this.context);
  }

  /** Whether anything set on this span is kept (a sampled span): lets callers skip work for the others. */
  get recording(): boolean {
    return this.#onEnd !== undefined;
  }

  setAttribute(key: string, value: AttributeValue | undefined): this {
    if (value !== undefined && this.#onEnd) this.attributes[key] = value;
    return this;
  }

  /** Marks the span failed; `message` must be a low-cardinality description, never input or output. */
  setError(message?: string): this {
    this.#status = message ? { code: SpanStatus.ERROR, message } : { code: SpanStatus.ERROR };
    return this;
  }

  addLink(link: SpanLink): this {
    if (this.#onEnd) this.links.push(link);
    return this;
  }

  /** Ends the span (once), now or at a time taken earlier: a sampled span goes to its tracer's export queue. */
  end(endMs?: number): void {
    if (this.#ended) return;
    this.#ended = true;
    if (!this.#onEnd) return;
    this.#onEnd({
      context: this.context,
      parentSpanId: this.parentSpanId,
      name: this.name,
      kind: this.kind,
      startMs: this.#start,
      endMs: endMs ?? epochMs(),
      attributes: this.attributes,
      status: this.#status,
      links: this.links,
    });
  }
}
