import type { ToolResult } from './call.ts';

const LATENCY_BUCKETS_MS = [1, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000, 30000];

/**
 * Dispatch counters and a latency histogram, rendered in Prometheus text format for
 * GET /metrics: tools.dispatch.latency_ms, the error rate (errors / total) and tools.registry.size.
 */
export class DispatchMetrics {
  readonly #byStatus = new Map<string, number>();
  readonly #buckets = new Array<number>(LATENCY_BUCKETS_MS.length).fill(0);
  #count = 0;
  #sum = 0;
  #errors = 0;
  #indeterminate = 0;
  readonly #registrySizes = new Map<string, number>();
  /** tenant + limit → [calls or requests counted, refused]. */
  readonly #limits = new Map<string, { tenant: string; limit: string; checked: number; refused: number }>();

  observe(result: ToolResult): void {
    this.#count++;
    this.#sum += result.duration_ms;
    if (result.is_error) this.#errors++;
    this.#byStatus.set(result.status, (this.#byStatus.get(result.status) ?? 0) + 1);
    LATENCY_BUCKETS_MS.forEach((bound, i) => {
      if (result.duration_ms <= bound) this.#buckets[i]++;
    });
  }

  /** A call whose side effect started and never completed was settled as `indeterminate` (once per call). */
  indeterminate(): void {
    this.#indeterminate++;
  }

  /** A call or request was counted against a tenant's limit (`refused`: the limit said no). */
  limitChecked(tenant: string, limit: string, refused: boolean): void {
    const key = `${tenant}\u0000${limit}`;
    let counts = this.#limits.get(key);
    if (!counts) this.#limits.set(key, (counts = { tenant, limit, checked: 0, refused: 0 }));
    counts.checked++;
    if (refused) counts.refused++;
  }

  registrySize(tenant: string, size: number): void {
    this.#registrySizes.set(tenant, size);
  }

  render(): string {
    const lines = [
      '# HELP toolgate_tools_dispatch_latency_ms Time from dispatch to result, per call.',
      '# TYPE toolgate_tools_dispatch_latency_ms histogram',
      ...LATENCY_BUCKETS_MS.map((bound, i) => `toolgate_tools_dispatch_latency_ms_bucket{le="${bound}"} ${this.#buckets[i]}`),
      `toolgate_tools_dispatch_latency_ms_bucket{le="+Inf"} ${this.#count}`,
      `toolgate_tools_dispatch_latency_ms_sum ${this.#sum}`,
      `toolgate_tools_dispatch_latency_ms_count ${this.#count}`,
      '# HELP toolgate_tools_dispatch_total Calls dispatched, by result status.',
      '# TYPE toolgate_tools_dispatch_total counter',
      ...[...this.#byStatus].map(([status, n]) => `toolgate_tools_dispatch_total{status="${status}"} ${n}`),
      '# HELP toolgate_tools_dispatch_errors_total Calls whose result is an error.',
      '# TYPE toolgate_tools_dispatch_errors_total counter',
      `toolgate_tools_dispatch_errors_total ${this.#errors}`,
      '# HELP toolgate_tools_dispatch_error_rate Errors divided by calls since start.',
      '# TYPE toolgate_tools_dispatch_error_rate gauge',
      `toolgate_tools_dispatch_error_rate ${this.#count === 0 ? 0 : this.#errors / this.#count}`,
      '# HELP toolgate_tools_indeterminate_total Calls whose side effect started but never completed (the process stopped), settled as indeterminate.',
      '# TYPE toolgate_tools_indeterminate_total counter',
      `toolgate_tools_indeterminate_total ${this.#indeterminate}`,
      '# HELP toolgate_limits_checked_total Calls and requests counted against a limit, per tenant and limit.',
      '# TYPE toolgate_limits_checked_total counter',
      ...[...this.#limits.values()].map((l) => `toolgate_limits_checked_total{tenant="${label(l.tenant)}",limit="${label(l.limit)}"} ${l.checked}`),
      '# HELP toolgate_limits_refused_total Calls and requests a limit refused (rate_limited, or HTTP 429), per tenant and limit.',
      '# TYPE toolgate_limits_refused_total counter',
      ...[...this.#limits.values()].map((l) => `toolgate_limits_refused_total{tenant="${label(l.tenant)}",limit="${label(l.limit)}"} ${l.refused}`),
      '# HELP toolgate_tools_registry_size Tools registered per tenant.',
      '# TYPE toolgate_tools_registry_size gauge',
      ...[...this.#registrySizes].map(([tenant, n]) => `toolgate_tools_registry_size{tenant="${label(tenant)}"} ${n}`),
    ];
    return `${lines.join('\n')}\n`;
  }
}

/** A Prometheus label value: quotes, backslashes and newlines would end it early. */
const label = (value: string) => value.replace(/["\\\n]/g, '_');
