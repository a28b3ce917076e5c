import { CommandShares, type Release } from './command-shares.ts';

interface Waiter {
  tenant: string;
  handOver: (release: Release) => void;
}

/**
 * The file operation slots of one exec-server (reads, writes, searches), shared between its
 * tenants by the rule command slots follow (CommandShares: each of N tenants is guaranteed
 * floor(max / N), more only while the others' guarantees stay free), but waited for: an
 * operation without a slot waits in line, up to a limit, for one its tenant may take. A slot that
 * frees up goes straight to the first in line whose tenant may take it (nobody arriving meanwhile
 * takes it first), so one tenant's line of slow searches never stands in front of another
 * tenant's read. With one tenant (or none named) every slot is its own, first come first served.
 */
export class FileOperationShares {
  readonly #shares: CommandShares;
  readonly #waiting: Waiter[] = [];

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
    const now = this.#tryTake(tenant);
    if (now) return Promise.resolve(now);
    return new Promise((resolve) => {
      const waiter: Waiter = {
        tenant,
        handOver: (release) => {
          clearTimeout(timer);
          resolve(release);
        },
      };
      const timer = setTimeout(() => {
        this.#waiting.splice(this.#waiting.indexOf(waiter), 1);
        resolve(undefined);
      }, waitMs);
      this.#waiting.push(waiter);
    });
  }

  /** A slot now, if the tenant's share allows one; its release serves the line. */
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

  /** Hands free slots to the first waiters, in order of arrival, whose tenants may take one now. */
  #serveWaiting(): void {
    for (let index = 0; index < this.#waiting.length; ) {
      const release = this.#tryTake(this.#waiting[index].tenant);
      if (release === undefined) {
        index += 1;
        continue;
      }
      const [waiter] = this.#waiting.splice(index, 1);
      waiter.handOver(release);
    }
  }
}
