import type { Limit } from './limit.ts';
import type { LimitVerdict } from './limiter.ts';

/** "10 calls per principal per 1 hour", as a refused caller reads the limit. */
export function describeLimit(limit: Limit): string {
  const unit = limit.counts === 'requests' ? 'requests' : limit.weight === 'cost' ? 'cost units of calls' : 'calls';
  const whose = limit.per === 'tenant' ? 'for this tenant' : `per ${limit.per}`;
  const tools = limit.counts === 'calls' && limit.tools !== '*' ? ` of ${limit.tools}` : '';
  if (limit.kind.type === 'concurrency') return `at most ${limit.kind.max} ${unit}${tools} running at once ${whose}`;
  return `at most ${limit.kind.max} ${unit}${tools} ${whose} per ${duration(limit.kind.window_ms)}${limit.kind.sliding ? ' (sliding)' : ''}`;
}

function duration(ms: number): string {
  const seconds = ms / 1000;
  for (const [size, name] of [[86_400, 'day'], [3600, 'hour'], [60, 'minute']] as const) {
    if (seconds % size === 0) return seconds === size ? `1 ${name}` : `${seconds / size} ${name}s`;
  }
  return seconds === 1 ? '1 second' : `${seconds} seconds`;
}

/** Whole seconds to wait (Retry-After's unit), at least 1. */
export function retryAfterSeconds(verdict: Extract<LimitVerdict, { ok: false }>): number {
  return Math.max(1, Math.ceil(verdict.retry_after_ms / 1000));
}

/** What a refused call's details carry: which limit, how full, when to try again. */
export function refusalDetails(verdict: Extract<LimitVerdict, { ok: false }>, now: number): Record<string, unknown> {
  const { limit } = verdict;
  const seconds = retryAfterSeconds(verdict);
  return {
    limit: limit.id,
    limit_index: limit.index,
    per: limit.per,
    max: limit.kind.max,
    ...(limit.kind.type === 'window' ? { window_seconds: limit.kind.window_ms / 1000, window: limit.kind.sliding ? 'sliding' : 'fixed' } : { concurrency: limit.kind.max }),
    used: Math.round(verdict.used * 100) / 100,
    weight: verdict.weight,
    retry_after_seconds: seconds,
    retry_at: new Date(now + verdict.retry_after_ms).toISOString(),
  };
}
