/**
 * A manifest limit (`limits[]`): how many calls (or HTTP requests) a tenant, a principal or a
 * tool may make per window, or how many may run at once.
 */
export interface ManifestLimit {
  /** Names the counter: a renamed limit starts counting afresh; without it the counter is named by what it counts. */
  name?: string;
  /** Which tools it counts: a name, or a glob with `*` ("refund_*"; default "*"). Not with `counts: "requests"`. */
  tools?: string;
  /** Whose calls share one counter (default "tenant"). "tool": each matching tool has its own. */
  per?: LimitSubject;
  /** At most this many (or this much cost) per window. */
  max?: number;
  window_seconds?: number;
  /** "fixed" (default): the count restarts at each window; "sliding": the previous window's count fades out over this one. */
  window?: 'fixed' | 'sliding';
  /** At most this many calls running at once (instead of max/window_seconds). */
  concurrency?: number;
  /** "cost": each call counts its tool's `cost` (default 1); "call" (default): each call counts 1. */
  weight?: 'call' | 'cost';
  /** "calls" (default): tool calls, refused as `rate_limited` results; "requests": whole HTTP requests, refused with 429. */
  counts?: 'calls' | 'requests';
  description?: string;
}

export type LimitSubject = 'tenant' | 'principal' | 'tool';

/** A manifest limit with its defaults filled, ready to match calls. */
export interface Limit {
  /** Position in the manifest's `limits` (for messages and audit). */
  index: number;
  /** The counter's name: stable across publishes that keep the limit. */
  id: string;
  tools: string;
  per: LimitSubject;
  kind: LimitKind;
  weight: 'call' | 'cost';
  counts: 'calls' | 'requests';
  description?: string;
}

export type LimitKind =
  | { type: 'window'; max: number; window_ms: number; sliding: boolean }
  | { type: 'concurrency'; max: number };

export function compileLimit(limit: ManifestLimit, index: number): Limit {
  const kind: LimitKind =
    limit.concurrency !== undefined
      ? { type: 'concurrency', max: limit.concurrency }
      : { type: 'window', max: limit.max ?? 0, window_ms: (limit.window_seconds ?? 0) * 1000, sliding: limit.window === 'sliding' };
  const counts = limit.counts ?? 'calls';
  const tools = limit.tools ?? '*';
  const per = limit.per ?? 'tenant';
  const what = kind.type === 'concurrency' ? 'concurrency' : `${kind.sliding ? 'sliding' : 'fixed'}/${kind.window_ms / 1000}s`;
  return {
    index,
    id: limit.name ?? `${counts}:${tools}:${per}:${what}`,
    tools,
    per,
    kind,
    weight: limit.weight ?? 'call',
    counts,
    ...(limit.description ? { description: limit.description } : {}),
  };
}

/**
 * Whether a tool name matches a limit's `tools`: `*` stands for any run of characters. Tool
 * names are short ([a-zA-Z0-9_-]{1,64}) and so are globs, and the greedy segment match below
 * never backtracks further than one segment, so this is linear in practice.
 */
export function toolGlobMatches(glob: string, tool: string): boolean {
  if (!glob.includes('*')) return glob === tool;
  const parts = glob.split('*');
  const first = parts[0];
  const last = parts[parts.length - 1];
  if (!tool.startsWith(first) || tool.length < first.length + last.length || !tool.endsWith(last)) return false;
  let at = first.length;
  const end = tool.length - last.length;
  for (const middle of parts.slice(1, -1)) {
    const found = tool.indexOf(middle, at);
    if (found < 0 || found + middle.length > end) return false;
    at = found + middle.length;
  }
  return true;
}
