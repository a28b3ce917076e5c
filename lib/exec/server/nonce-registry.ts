/**
 * The nonces of signed exec RPC requests seen within the signature window. A signed request is
 * accepted while its timestamp is within `windowSeconds` of the server's clock (either way), so
 * its nonce must be remembered until `timestamp + windowSeconds`: after that, the signature
 * check refuses the request anyway and the nonce can be forgotten. Memory is bounded by
 * `capacity`: when that many live nonces are held, new requests are refused (fail closed)
 * rather than forgetting a nonce early and reopening a replay.
 */
export type NonceClaim = 'fresh' | 'replayed' | 'full';

/** How long past its signature's expiry a nonce is still remembered. */
const SWEEP_MARGIN_SECONDS = 1;

export class NonceRegistry {
  readonly #windowSeconds: number;
  readonly #capacity: number;
  /** nonce → the last second at which a request carrying it can still pass the signature check. */
  readonly #expiries = new Map<string, number>();
  #sweptAt = -Infinity;

  constructor(windowSeconds: number, capacity: number) {
    this.#windowSeconds = windowSeconds;
    this.#capacity = capacity;
  }

  /** Records the nonce of a request signed at `timestampSeconds`; 'replayed' when it was seen before. */
  claim(nonce: string, timestampSeconds: number, nowSeconds: number): NonceClaim {
    this.#sweep(nowSeconds);
    if (this.#expiries.has(nonce)) return 'replayed';
    if (this.#expiries.size >= this.#capacity) return 'full';
    this.#expiries.set(nonce, timestampSeconds + this.#windowSeconds);
    return 'fresh';
  }

  get size(): number {
    return this.#expiries.size;
  }

  /**
   * Drops nonces whose requests can no longer pass the signature check, one second late on
   * purpose (a caller whose clock readings straddle a second must still find them); at most once
   * a second.
   */
  #sweep(nowSeconds: number): void {
    if (nowSeconds <= this.#sweptAt) return;
    this.#sweptAt = nowSeconds;
    for (const [nonce, expiry] of this.#expiries) {
      if (expiry + SWEEP_MARGIN_SECONDS < nowSeconds) this.#expiries.delete(nonce);
    }
  }
}
