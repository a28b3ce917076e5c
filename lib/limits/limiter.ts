import type { RecordStore } from '../stores/store.ts';
import { returnToWindow, rolledWindow, takeFromWindow, takeLease, withoutLease, type TakeDecision } from './counters.ts';
import { compileLimit, toolGlobMatches, type Limit, type ManifestLimit } from './limit.ts';
import { compareAndSet } from './record-cas.ts';

/** Who is asking, as the limits see it. */
export interface LimitedCaller {
  tenant: string;
  principal: string;
}

/** One limit's counter for one call: which record, and how much the call counts. */
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

export type LimitVerdict =
  | { ok: true; held: HeldLimit[] }
  | { ok: false; limit: Limit; retry_after_ms: number; used: number; weight: number; held: [] };

const LIMIT_KEY_PREFIX = 'limit/';

/**
 * A tenant's limits over a store. Limits are taken one after another in key order; when one
 * refuses, the counts already taken are given back. Each take is atomic (record-cas.ts), so a
 * limit never admits more than its max; while a refused call gives its counts back, a concurrent
 * call may see them (and be refused too) for that moment, never the other way round.
 */
export class Limiter {
  readonly limits: readonly Limit[];
  readonly #store: RecordStore;
  readonly #costs: ReadonlyMap<string, number>;
  readonly #now: () => number;

  constructor(limits: readonly ManifestLimit[], store: RecordStore, options: { costs?: ReadonlyMap<string, number>; now?: () => number } = {}) {
    this.limits = limits.map(compileLimit);
    this.#store = store;
    this.#costs = options.costs ?? new Map();
    this.#now = options.now ?? Date.now;
  }

  /** Whether any limit counts calls (the pipeline skips the stage otherwise). */
  get countsCalls(): boolean {
    return this.limits.some((limit) => limit.counts === 'calls');
  }

  get countsRequests(): boolean {
    return this.limits.some((limit) => limit.counts === 'requests');
  }

  /** Takes the call limits that apply to a call of `tool`; `leaseMs` is how long a concurrency lease lives if the call never releases it. */
  takeForCall(caller: LimitedCaller, tool: string, leaseMs: number, only?: 'window'): Promise<LimitVerdict> {
    const takes = this.limits
      .filter((limit) => limit.counts === 'calls' && toolGlobMatches(limit.tools, tool) && (only === undefined || limit.kind.type === only))
      .map((limit) => this.#take(limit, caller, tool));
    return this.#takeAll(takes, leaseMs);
  }

  /** Takes the request limits (one HTTP request to the dispatch endpoints). */
  takeForRequest(caller: LimitedCaller): Promise<LimitVerdict> {
    return this.#takeAll(this.limits.filter((limit) => limit.counts === 'requests').map((limit) => this.#take(limit, caller, '')), 0);
  }

  /** Ends a call's leases (success, error, timeout alike). A lease that cannot be released (store down) expires by itself. */
  async release(held: readonly HeldLimit[]): Promise<void> {
    await Promise.all(held.filter((h) => h.lease !== undefined).map((h) => this.#releaseLease(h.key, h.lease!).catch(() => undefined)));
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
      let taken: { decision: TakeDecision; held?: HeldLimit };
      try {
        taken = await this.#takeOne(take, leaseMs);
      } catch (error) {
        await this.#giveBack(held);
        throw error;
      }
      if (!taken.decision.ok) {
        await this.#giveBack(held);
        return { ok: false, limit: take.limit, retry_after_ms: taken.decision.retry_after_ms, used: taken.decision.used, weight: take.weight, held: [] };
      }
      held.push(taken.held!);
    }
    return { ok: true, held };
  }

  #takeOne({ limit, key, weight }: Take, leaseMs: number): Promise<{ decision: TakeDecision; held?: HeldLimit }> {
    return compareAndSet<{ decision: TakeDecision; held?: HeldLimit }>(this.#store, key, (data) => {
      const now = this.#now();
      if (limit.kind.type === 'concurrency') {
        const lease = crypto.randomUUID();
        const decision = takeLease(data, now, limit.kind.max, lease, now + leaseMs);
        return decision.ok ? { write: decision, value: { decision, held: { key, limit, weight, lease } } } : { value: { decision } };
      }
      const decision = takeFromWindow(data, now, limit.kind, weight);
      const window_start = rolledWindow(undefined, now, limit.kind.window_ms).window_start;
      return decision.ok ? { write: decision, value: { decision, held: { key, limit, weight, window_start } } } : { value: { decision } };
    });
  }

  async #giveBack(held: readonly HeldLimit[]): Promise<void> {
    await Promise.all(
      held.map((h) =>
        (h.lease !== undefined
          ? this.#releaseLease(h.key, h.lease)
          : compareAndSet(this.#store, h.key, (data) => {
              const returned = returnToWindow(data, h.window_start!, h.weight);
              return returned ? { write: { data: returned, expires_at: h.window_start! + this.#windowLife(h.limit) }, value: undefined } : { value: undefined };
            })
        ).catch(() => undefined),
      ),
    );
  }

  #windowLife(limit: Limit): number {
    return limit.kind.type === 'window' ? limit.kind.window_ms * (limit.kind.sliding ? 2 : 1) : 0;
  }

  #releaseLease(key: string, lease: string): Promise<void> {
    return compareAndSet(this.#store, key, (data) => {
      const next = withoutLease(data, this.#now(), lease);
      return next ? { write: next, value: undefined } : { value: undefined };
    });
  }
}
