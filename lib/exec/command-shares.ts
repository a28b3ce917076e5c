/** Gives back a slot; calling it again does nothing. */
export type Release = () => void;

/** Why a command got no slot, and when the wait ends at the latest. */
export interface NoSlot {
  /** `full`: every slot is taken; `share`: the tenant already runs all the others leave it. */
  reason: 'full' | 'share';
  /** The commands that stand in the way: all of them (`full`), or the tenant's own (`share`). */
  running: number;
  /** When the soonest of those must have ended, by its time limit (ms since the epoch). */
  soonestEnd: number;
}

interface Running {
  tenant: string;
  endsBy: number;
}

/**
 * The command slots of one exec-server, shared between the tenants it serves. The rule: each of
 * the N tenants is guaranteed floor(max / N) slots (at least 1), and a tenant may take a slot
 * beyond its guarantee only while the slots left free after it still cover what the other
 * tenants have not used of theirs. With one tenant it has every slot; with 2 tenants and 4 slots
 * each has 2, whatever the other does; with 3 tenants and 4 slots each has 1 and the fourth goes
 * to whoever asks first. Nothing is queued: a command that gets no slot is refused at once.
 */
export class CommandShares {
  readonly max: number;
  /** The slots each tenant is guaranteed. */
  readonly guaranteed: number;
  readonly #tenants: readonly string[];
  readonly #running = new Set<Running>();

  /** `tenants`: the tenants served; none (a local environment) means one, which has every slot. */
  constructor(max: number, tenants: readonly string[]) {
    if (!Number.isSafeInteger(max) || max < 1) throw new RangeError(`a slot limit must be a whole number of at least 1, got ${max}`);
    this.max = max;
    this.#tenants = [...new Set(tenants)];
    this.guaranteed = Math.max(1, Math.floor(max / Math.max(1, this.#tenants.length)));
  }

  get taken(): number {
    return this.#running.size;
  }

  /** A slot for a command of `tenant` that ends by `endsBy` at the latest, or why there is none. */
  tryTake(tenant: string, endsBy: number): Release | NoSlot {
    const free = this.max - this.taken;
    if (free === 0) return this.#noSlot('full', [...this.#running]);
    const own = this.#of(tenant);
    if (own.length >= this.guaranteed && free - 1 < this.#unusedByOthers(tenant)) return this.#noSlot('share', own);
    const entry = { tenant, endsBy };
    this.#running.add(entry);
    return () => void this.#running.delete(entry);
  }

  /** Slots the other tenants are guaranteed and do not use now. */
  #unusedByOthers(tenant: string): number {
    return this.#tenants.filter((other) => other !== tenant).reduce((sum, other) => sum + Math.max(0, this.guaranteed - this.#of(other).length), 0);
  }

  #of(tenant: string): Running[] {
    return [...this.#running].filter((entry) => entry.tenant === tenant);
  }

  #noSlot(reason: NoSlot['reason'], running: Running[]): NoSlot {
    return { reason, running: running.length, soonestEnd: Math.min(...running.map((entry) => entry.endsBy)) };
  }
}
