import type { Logger } from './log.ts';

export interface OtlpEndpoint {
  /** The traces URL: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, or OTEL_EXPORTER_OTLP_ENDPOINT + /v1/traces. */
  url: string;
  /** OTEL_EXPORTER_OTLP_HEADERS and _TRACES_HEADERS (the operator's, e.g. a collector's API key). */
  headers: Record<string, string>;
  timeoutMs: number;
}

/** How often an export failure is logged at most: a down collector is said once a minute, not per batch. */
const FAILURE_LOG_INTERVAL_MS = 60_000;

/**
 * Posts encoded batches to the collector with the runtime's fetch. A failure (collector down,
 * refused, slow) is logged now and then with how many spans were lost, and never thrown.
 */
export class OtlpHttpExporter {
  readonly #endpoint: OtlpEndpoint;
  readonly #log: Logger;
  readonly #fetch: typeof fetch;
  readonly #shownUrl: string;
  #lastFailureLog = -Infinity;
  #lostSinceLog = 0;

  constructor(endpoint: OtlpEndpoint, log: Logger, fetchImpl?: typeof fetch, shownUrl = endpoint.url) {
    this.#endpoint = endpoint;
    this.#shownUrl = shownUrl;
    this.#log = log;
    this.#fetch = fetchImpl ?? ((input, init) => fetch(input, init));
  }

  async export(body: string, spanCount: number): Promise<boolean> {
    try {
      const response = await this.#fetch(this.#endpoint.url, {
        method: 'POST',
        headers: { ...this.#endpoint.headers, 'content-type': 'application/json' },
        body,
        signal: AbortSignal.timeout(this.#endpoint.timeoutMs),
      });
      // The body is the collector's (partial success details); it is read so the connection is freed.
      await response.text().catch(() => '');
      if (response.ok) return true;
      this.failed(spanCount, `HTTP ${response.status}`);
    } catch (error) {
      const cause = (error as { cause?: { code?: string } }).cause?.code;
      this.failed(spanCount, cause ?? (error instanceof Error ? `${error.name}: ${error.message}` : String(error)));
    }
    return false;
  }

  /** Counts lost spans and logs them at most once per interval. */
  failed(spanCount: number, reason: string): void {
    this.#lostSinceLog += spanCount;
    const now = Date.now();
    if (now - this.#lastFailureLog < FAILURE_LOG_INTERVAL_MS) return;
    this.#lastFailureLog = now;
    this.#log('telemetry.export_failed', { level: 'warn', endpoint: this.#shownUrl, reason, spans_lost: this.#lostSinceLog });
    this.#lostSinceLog = 0;
  }
}
