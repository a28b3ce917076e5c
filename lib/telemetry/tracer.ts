import type { Logger } from './log.ts';
import type { OtlpHttpExporter } from './exporter.ts';
import { encodeTraces } from './otlp-json.ts';
import type { Sampler } from './sampler.ts';
import { Span, type Attributes, type FinishedSpan, type SpanKindValue, type SpanLink } from './span.ts';
import { newSpanId, newTraceId, type SpanContext } from './trace-context.ts';

/**
 * When queued spans are exported. `interval` (Node, Deno): a background timer that never keeps
 * the process alive, and a full batch at once. `request` (Workers, Lambda): at the end of each
 * request, handed to the runtime's waitUntil where there is one, never awaited by the response.
 */
export type ExportSchedule = 'interval' | 'request';

export interface TracerOptions {
  exporter: Pick<OtlpHttpExporter, 'export' | 'failed'>;
  sampler: Sampler;
  /** The process's resource: service.name and OTEL_RESOURCE_ATTRIBUTES. */
  resource: Attributes;
  schedule: ExportSchedule;
  /** Whether tool arguments and results go on spans (TOOLGATE_OTEL_CAPTURE_CONTENT), masked. */
  captureContent: boolean;
  /** Spans kept while waiting for export (OTEL_BSP_MAX_QUEUE_SIZE); beyond it the oldest are dropped. */
  maxQueue?: number;
  /** Spans per export request (OTEL_BSP_MAX_EXPORT_BATCH_SIZE). */
  maxBatch?: number;
  /** The interval schedule's period (OTEL_BSP_SCHEDULE_DELAY). */
  intervalMs?: number;
  log: Logger;
}

export interface StartSpanOptions {
  kind: SpanKindValue;
  /** The span this one is part of: a span of this process, or a caller's (traceparent). */
  parent?: SpanContext;
  attributes?: Attributes;
  links?: SpanLink[];
}

const SCOPE = { name: 'toolgate', version: '1' };
/** Exports running at once at most; spans wait in the queue beyond that. */
const MAX_EXPORTS_IN_FLIGHT = 4;

/**
 * The gateway's tracer: one per process (isolate), built from the environment. It starts spans,
 * queues the ended ones (bounded: the oldest are dropped past the cap) and exports them in the
 * background over OTLP/HTTP JSON; nothing it does is awaited by a response.
 */
export class Tracer {
  readonly captureContent: boolean;
  readonly schedule: ExportSchedule;
  readonly #options: TracerOptions;
  readonly #maxQueue: number;
  readonly #maxBatch: number;
  #queue: FinishedSpan[] = [];
  #dropped = 0;
  #inFlight = 0;
  #timer: ReturnType<typeof setInterval> | undefined;
  readonly #exports = new Set<Promise<void>>();
  readonly #enqueue = (span: FinishedSpan) => this.#push(span);

  constructor(options: TracerOptions) {
    this.#options = options;
    this.captureContent = options.captureContent;
    this.schedule = options.schedule;
    this.#maxQueue = Math.max(1, options.maxQueue ?? 2048);
    this.#maxBatch = Math.max(1, Math.min(options.maxBatch ?? 512, this.#maxQueue));
  }

  startSpan(name: string, options: StartSpanOptions): Span {
    const { parent } = options;
    const traceId = parent?.traceId ?? newTraceId();
    const sampled = this.#options.sampler(parent, traceId);
    const context: SpanContext = { traceId, spanId: newSpanId(), sampled, ...(parent?.traceState ? { traceState: parent.traceState } : {}) };
    // The attributes object is the span's own from here (callers build a fresh one).
    const span = new Span(name, options.kind, context, parent?.spanId, sampled ? (options.attributes ?? {}) : {}, this.#enqueue);
    for (const link of options.links ?? []) span.addLink(link);
    return span;
  }

  /** A child of `parent` (a span of this process). */
  startChild(parent: Span, name: string, kind: SpanKindValue, attributes?: Attributes): Span {
    const context: SpanContext = { traceId: parent.context.traceId, spanId: newSpanId(), sampled: parent.context.sampled, ...(parent.context.traceState ? { traceState: parent.context.traceState } : {}) };
    return new Span(name, kind, context, parent.context.spanId, parent.context.sampled ? (attributes ?? {}) : {}, this.#enqueue);
  }

  /** A request ended: on the `request` schedule its spans go out now, through `defer` (waitUntil) when the runtime has one. */
  requestEnded(defer?: (work: Promise<unknown>) => void): void {
    const exporting = this.exportRequestSpans();
    if (exporting) defer?.(exporting);
  }

  /**
   * On the `request` schedule, the export of what is queued now (undefined when nothing is): only
   * this request's own exports, since on Workers a promise of another request's must not be awaited.
   */
  exportRequestSpans(): Promise<void> | undefined {
    if (this.schedule !== 'request' || this.#queue.length === 0) return undefined;
    return this.#exportQueued();
  }

  /** Exports everything queued now; resolves when every export under way is done (it never rejects). */
  flush(): Promise<void> {
    const queued = this.#exportQueued();
    return Promise.all([queued, ...this.#exports]).then(() => undefined);
  }

  #exportQueued(): Promise<void> {
    const batches: Promise<void>[] = [];
    while (this.#queue.length > 0 && this.#inFlight < MAX_EXPORTS_IN_FLIGHT) batches.push(this.#exportBatch());
    return Promise.all(batches).then(() => undefined);
  }

  /** Stops the timer and exports what is left (Node's shutdown). */
  async shutdown(): Promise<void> {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
    await this.flush();
    // What waited for an export slot during the first round.
    if (this.#queue.length > 0) await this.flush();
  }

  /** Spans waiting for export (tests and the bench read it). */
  get queued(): number {
    return this.#queue.length;
  }

  #push(span: FinishedSpan): void {
    this.#queue.push(span);
    if (this.#queue.length > this.#maxQueue) {
      // Drop the oldest in one cut (a quarter of the cap), so a stalled collector costs O(1) per span.
      const cut = Math.max(1, this.#maxQueue >> 2);
      this.#queue = this.#queue.slice(cut);
      this.#dropped += cut;
    }
    if (this.schedule !== 'interval') return;
    this.#startTimer();
    if (this.#queue.length >= this.#maxBatch && this.#inFlight < MAX_EXPORTS_IN_FLIGHT) void this.#exportBatch();
  }

  #startTimer(): void {
    if (this.#timer !== undefined) return;
    this.#timer = setInterval(() => void this.flush(), this.#options.intervalMs ?? 5000);
    // The timer never keeps the process alive: Node's timers have unref(), Deno's are numbers it unrefs.
    if (typeof this.#timer === 'number') (globalThis as { Deno?: { unrefTimer(id: number): void } }).Deno?.unrefTimer(this.#timer);
    else (this.#timer as { unref?: () => void }).unref?.();
  }

  #exportBatch(): Promise<void> {
    const batch = this.#queue.slice(0, this.#maxBatch);
    this.#queue = this.#queue.slice(batch.length);
    if (this.#dropped > 0) {
      this.#options.exporter.failed(this.#dropped, 'the export queue was full (the collector is slow or down); the oldest spans were dropped');
      this.#dropped = 0;
    }
    this.#inFlight++;
    const exporting = this.#options.exporter
      .export(encodeTraces(this.#options.resource, SCOPE, batch), batch.length)
      .then(
        () => undefined,
        () => undefined,
      )
      .finally(() => {
        this.#inFlight--;
        this.#exports.delete(exporting);
      });
    this.#exports.add(exporting);
    return exporting;
  }
}
