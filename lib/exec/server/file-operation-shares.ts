import { CommandShares, type Release } from '../command-shares.ts';

interface Waiter {
  /** Order of arrival, across tenants. */
  arrived: number;
  handOver: (release: Release) => void;
  /** Gave up (its wait ended): dropped when it reaches the head of its tenant's line. */
  gone: boolean;
}

/** One tenant's waiters in order of arrival; the head is at `head` (dropped ones are skipped, not spliced). */
interface Line {
  waiters: Waiter[];
  head: number;
}

/**
 * The file operation slots of one exec-server (reads, writes, searches), shared between its
 * tenants by the rule command slots follow (CommandShares: each of N tenants is guaranteed
 * floor(max / N), more only while the others' guarantees stay free), but waited for: an
 * operation without a slot waits in its tenant's line, up to a limit, for one its tenant may
 * take. A slot that frees up goes straight to the earliest waiter whose tenant may take it
 * (nobody arriving meanwhile takes it first), so one tenant's line of slow searches never stands
 * in front of another tenant's read. Whether a waiter may take a slot depends on its tenant only,
 * so only the head of each line is looked at: a release costs the number of tenants, however
 * long a line grows. With one tenant (or none named) every slot is its own, first come first served.
 */
export class FileOperationShares {
  readonly #shares: CommandShares;
  readonly #lines = new Map<string, Line>();
  #arrivals = 0;

  /** `tenants`: those the exec-server serves; none (a local environment) means one, which has every slot. */
  constructor(max: number, tenants: readonly string[]) {
    this.#shares = new CommandShares(max, tenants);
  }

  get max(): number {
    return this.#shares.max;
  }

  /** The slots each tenant is guaranteed. */
  get guaranteed(): number {
    return this.#shares.guaranteed;
  }

  get taken(): number {
    return this.#shares.taken;
  }

  /** A slot for `tenant` as soon as it may take one, or undefined when none came within `waitMs`. */
  take(tenant: string, waitMs: number): Promise<Release | undefined> {
    const now = this.#lineOf(tenant) === undefined ? this.#tryTake(tenant) : undefined;
    if (now) return Promise.resolve(now);
    return new Promise((resolve) => {
      const waiter: Waiter = {
        arrived: this.#arrivals++,
        gone: false,
        handOver: (release) => {
          clearTimeout(timer);
          resolve(release);
        },
      };
      const timer = setTimeout(() => {
        waiter.gone = true;
        resolve(undefined);
      }, waitMs);
      const line = this.#lines.get(tenant) ?? { waiters: [], head: 0 };
      line.waiters.push(waiter);
      this.#lines.set(tenant, line);
    });
  }

  /** A slot now, if the tenant's share allows one; its release serves the lines. */
  #tryTake(tenant: string): Release | undefined {
    // File operations have no time limit of their own to report (CommandShares' endsBy).
    const slot = this.#shares.tryTake(tenant, Number.POSITIVE_INFINITY);
    if (typeof slot !== 'function') return undefined;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      slot();
      this.#serveWaiting();
    };
  }

  /** Hands free slots to the earliest waiters whose tenants may take one now. */
  #serveWaiting(): void {
    for (;;) {
      const candidates = [...this.#lines.keys()].flatMap((tenant) => {
        const line = this.#lineOf(tenant);
        return line ? [{ tenant, line, waiter: line.waiters[line.head] }] : [];
      });
      candidates.sort((a, b) => a.waiter.arrived - b.waiter.arrived);
      const served = candidates.find(({ tenant, line }) => {
        const release = this.#tryTake(tenant);
        if (release === undefined) return false;
        const waiter = line.waiters[line.head];
        line.head += 1;
        waiter.handOver(release);
        return true;
      });
      if (!served) return;
    }
  }

  /** The tenant's line with a live waiter at its head, dropping those that gave up; undefined when none waits. */
  #lineOf(tenant: string): Line | undefined {
    const line = this.#lines.get(tenant);
    if (!line) return undefined;
    while (line.head < line.waiters.length && line.waiters[line.head].gone) line.head += 1;
    if (line.head < line.waiters.length) {
      // Keep the array from growing with those already served or gone.
      if (line.head > 64 && line.head * 2 > line.waiters.length) {
        line.waiters.splice(0, line.head);
        line.head = 0;
      }
      return line;
    }
    this.#lines.delete(tenant);
    return undefined;
  }
}
