/** Gives back a slot; calling it again does nothing. */
export type Release = () => void;

/**
 * A count of things going on at once, up to a limit: a slot is taken before the work and given
 * back after it. Waiters are served in order of arrival.
 */
export class Slots {
  readonly max: number;
  #taken = 0;
  readonly #waiting: Array<(release: Release) => void> = [];

  constructor(max: number) {
    if (!Number.isSafeInteger(max) || max < 1) throw new RangeError(`a slot limit must be a whole number of at least 1, got ${max}`);
    this.max = max;
  }

  get taken(): number {
    return this.#taken;
  }

  /** A slot now, or undefined when all are taken. */
  tryTake(): Release | undefined {
    if (this.#taken >= this.max) return undefined;
    this.#taken++;
    return this.#release();
  }

  /** A slot as soon as one is free, or undefined when none was free within `waitMs`. */
  take(waitMs: number): Promise<Release | undefined> {
    const now = this.tryTake();
    if (now) return Promise.resolve(now);
    return new Promise((resolve) => {
      const handOver = (release: Release) => {
        clearTimeout(timer);
        resolve(release);
      };
      const timer = setTimeout(() => {
        this.#waiting.splice(this.#waiting.indexOf(handOver), 1);
        resolve(undefined);
      }, waitMs);
      this.#waiting.push(handOver);
    });
  }

  #release(): Release {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.#waiting.shift();
      // The slot passes straight to the next waiter: nobody arriving meanwhile can take it first.
      if (next) next(this.#release());
      else this.#taken--;
    };
  }
}
