import type { LimitCounters, WindowSpec } from '../stores/limit-counters.ts';
import { windowRetryAfterMs, windowUsed } from './counters.ts';
import { compileLimit, toolGlobMatches, type Limit, type LimitKind, type ManifestLimit } from './limit.ts';

/** Who is asking, as the limits see it. */
export interface LimitedCaller {
  tenant: string;
  principal: string;
}

/** One limit's counter for one call: which key, and how much the call counts. */
interface Take {
  limit: Limit;
  key: string;
  weight: number;
}

/** What a call holds once admitted: window counts to give back if a later limit refuses, leases to release when it ends. */
export interface HeldLimit {
  key: string;
  limit: Limit;
  weight: number;
  /** A window count: the window it was counted in. */
  window_start?: number;
  /** A concurrency lease: its id. */
  lease?: string;
}

export type LimitRefusal = { ok: false; limit: Limit; retry_after_ms: number; used: number; weight: number };
export type LimitVerdict = { ok: true; held: HeldLimit[] } | LimitRefusal;

/** Hears every count taken (metrics): which limit, and whether it refused. */
export type LimitObserver = (limit: Limit, refused: boolean) => void;

type TakeOutcome = { ok: true; held: HeldLimit } | LimitRefusal;

const LIMIT_KEY_PREFIX = 'limit/';

/**
 * A tenant's limits over a store's counters. Limits are taken one after another in key order;
 * when one refuses, the counts already taken are given back. Each take is atomic in the store,
 * so a limit never admits more than its max; while a refused call gives its counts back, a
 * concurrent call may see them (and be refused too) for that moment, never the other way round.
 */
export class Limiter {
  readonly limits: readonly Limit[];
  readonly #counters: LimitCounters;
  readonly #costs: ReadonlyMap<string, number>;
  readonly #now: () => number;
  readonly #observe?: LimitObserver;

  constructor(limits: readonly ManifestLimit[], counters: LimitCounters, options: { costs?: ReadonlyMap<string, number>; now?: () => number; observe?: LimitObserver } = {}) {
    this.limits = limits.map(compileLimit);
    this.#counters = counters;
    this.#costs = options.costs ?? new Map();
    this.#now = options.now ?? Date.now;
    this.#observe = options.observe;
  }

  /** Whether any limit counts calls (the pipeline skips the stage otherwise). */
  get countsCalls(): boolean {
    return this.limits.some((limit) => limit.counts === 'calls');
  }

  get countsRequests(): boolean {
    return this.limits.some((limit) => limit.counts === 'requests');
  }

  /**
   * Takes the call limits that apply to a call of `tool` (`only`: those of one kind); `leaseMs`
   * is how long a concurrency lease lives if the call never releases it.
   */
  takeForCall(caller: LimitedCaller, tool: string, leaseMs: number, only?: LimitKind['type']): Promise<LimitVerdict> {
    const takes = this.limits
      .filter((limit) => limit.counts === 'calls' && toolGlobMatches(limit.tools, tool) && (only === undefined || limit.kind.type === only))
      .map((limit) => this.#take(limit, caller, tool));
    return this.#takeAll(takes, leaseMs);
  }

  /** Takes the request limits (one HTTP request to a dispatch endpoint). */
  takeForRequest(caller: LimitedCaller): Promise<LimitVerdict> {
    return this.#takeAll(this.limits.filter((limit) => limit.counts === 'requests').map((limit) => this.#take(limit, caller, '')), 0);
  }

  /** Ends a call's leases (success, error, timeout alike). A lease that cannot be released (store down) expires by itself. */
  async release(held: readonly HeldLimit[]): Promise<void> {
    const now = this.#now();
    await Promise.all(held.filter((h) => h.lease !== undefined).map((h) => this.#counters.removeLease(h.key, h.lease!, now).catch(() => undefined)));
  }

  #take(limit: Limit, caller: LimitedCaller, tool: string): Take {
    const subject = limit.per === 'tenant' ? '' : limit.per === 'principal' ? caller.principal : tool;
    const key = `${LIMIT_KEY_PREFIX}${[caller.tenant, limit.id, limit.per, subject].map(encodeURIComponent).join('/')}`;
    const weight = limit.weight === 'cost' ? (this.#costs.get(tool) ?? 1) : 1;
    return { limit, key, weight };
  }

  async #takeAll(takes: Take[], leaseMs: number): Promise<LimitVerdict> {
    const held: HeldLimit[] = [];
    // Key order: two calls taking the same limits take them in the same order.
    for (const take of [...takes].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))) {
      let taken: TakeOutcome;
      try {
        taken = await this.#takeOne(take, leaseMs);
      } catch (error) {
        await this.#giveBack(held);
        throw error;
      }
      this.#observe?.(take.limit, !taken.ok);
      if (!taken.ok) {
        await this.#giveBack(held);
        return taken;
      }
      held.push(taken.held);
    }
    return { ok: true, held };
  }

  async #takeOne({ limit, key, weight }: Take, leaseMs: number): Promise<TakeOutcome> {
    const now = this.#now();
    if (limit.kind.type === 'concurrency') {
      const lease = crypto.randomUUID();
      const taken = await this.#counters.addLease(key, now, limit.kind.max, lease, now + leaseMs);
      // A running call may end any moment: try again in a second.
      return taken.ok ? { ok: true, held: { key, limit, weight, lease } } : { ok: false, limit, retry_after_ms: 1000, used: taken.used, weight };
    }
    const spec = windowSpec(limit);
    const taken = await this.#counters.addToWindow(key, now, spec, weight);
    if (taken.ok) return { ok: true, held: { key, limit, weight, window_start: taken.window_start } };
    return { ok: false, limit, retry_after_ms: windowRetryAfterMs(taken.state, now, spec, weight), used: windowUsed(taken.state, now, spec), weight };
  }

  async #giveBack(held: readonly HeldLimit[]): Promise<void> {
    const now = this.#now();
    await Promise.all(
      held.map((h) =>
        (h.lease !== undefined ? this.#counters.removeLease(h.key, h.lease, now) : this.#counters.subtractFromWindow(h.key, h.window_start!, windowSpec(h.limit), h.weight)).catch(() => undefined),
      ),
    );
  }
}

function windowSpec(limit: Limit): WindowSpec {
  if (limit.kind.type !== 'window') throw new TypeError(`limit ${limit.id} counts concurrency, not a window`);
  return { window_ms: limit.kind.window_ms, sliding: limit.kind.sliding, max: limit.kind.max };
}
