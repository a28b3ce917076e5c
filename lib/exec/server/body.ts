import type { IncomingMessage } from 'node:http';

/** How much of a refused body is read and thrown away so the refusal reaches the client. */
const MAX_DISCARDED_BYTES = 64 * 1024 * 1024;

/**
 * The body bytes all requests together may hold in memory at once. Each request's own limit
 * (maxBodyBytes) holds only for that request: without this, parallel bodies add up. Once a body
 * names its tenant, its bytes also count against that tenant's share (`tenantShare`): one
 * tenant's large writes, waiting for a file operation slot with their bodies held, never take the
 * room every other tenant's requests need.
 */
export class BodyBudget {
  readonly max: number;
  /** The bytes one tenant's requests may hold at once (all of them with one tenant). */
  readonly tenantShare: number;
  #held = 0;
  readonly #byTenant = new Map<string, number>();

  constructor(max: number, tenantShare = max) {
    this.max = max;
    this.tenantShare = tenantShare;
  }

  get held(): number {
    return this.#held;
  }

  /** Whether `bytes` more fit; when they do they are held until given back. */
  reserve(bytes: number): boolean {
    if (this.#held + bytes > this.max) return false;
    this.#held += bytes;
    return true;
  }

  giveBack(bytes: number): void {
    this.#held -= bytes;
  }

  /**
   * Counts `bytes`, already reserved, as `tenant`'s until the returned function is called; or
   * counts nothing and answers undefined when the tenant's requests would then hold more than
   * its share.
   */
  claimFor(tenant: string, bytes: number): (() => void) | undefined {
    const before = this.#byTenant.get(tenant) ?? 0;
    if (before + bytes > this.tenantShare) return undefined;
    this.#byTenant.set(tenant, before + bytes);
    let claimed = true;
    return () => {
      if (!claimed) return;
      claimed = false;
      const left = (this.#byTenant.get(tenant) ?? 0) - bytes;
      if (left > 0) this.#byTenant.set(tenant, left);
      else this.#byTenant.delete(tenant);
    };
  }
}

/**
 * What reading a body gave: its bytes; or nothing kept because it was larger than one request
 * may send (`too_large`) or than the budget had room for (`no_room`), read to its end all the
 * same so the refusal reaches the client; or `gone`, the client left before it ended.
 */
export type ReadBody = { bytes: Uint8Array } | { refused: 'too_large' | 'no_room' } | { refused: 'gone' };

/**
 * Reads the body, holding its bytes in `budget` (the caller gives back `held()` when done with
 * them). A declared Content-Length is reserved before anything is read; a body without one is
 * reserved as it arrives. What is refused is read on and thrown away (see discardBody).
 */
export function readBody(request: IncomingMessage, maxBytes: number, budget: BodyBudget): { done: Promise<ReadBody>; held(): number } {
  let held = 0;
  const reserve = (bytes: number) => {
    if (!budget.reserve(bytes)) return false;
    held += bytes;
    return true;
  };
  const done = new Promise<ReadBody>((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const stopListening = () => {
      request.off('data', onData);
      request.off('end', onEnd);
      request.off('close', onGone);
      request.off('error', onGone);
    };
    const refuse = (why: 'too_large' | 'no_room') => {
      stopListening();
      chunks.length = 0;
      void discardBody(request, MAX_DISCARDED_BYTES + maxBytes - size).then((ended) => resolve(ended ? { refused: why } : { refused: 'gone' }));
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) return refuse('too_large');
      if (size > held && !reserve(size - held)) return refuse('no_room');
      chunks.push(chunk);
    };
    const onEnd = () => {
      stopListening();
      resolve({ bytes: Buffer.concat(chunks) });
    };
    const onGone = () => {
      stopListening();
      resolve({ refused: 'gone' });
    };
    const declared = Number(request.headers['content-length']);
    if (Number.isSafeInteger(declared) && declared > maxBytes) return refuse('too_large');
    if (Number.isSafeInteger(declared) && declared > 0 && !reserve(declared)) return refuse('no_room');
    request.on('data', onData);
    request.once('end', onEnd);
    request.once('close', onGone);
    request.once('error', onGone);
  });
  return { done, held: () => held };
}

/**
 * Reads the rest of a body and keeps none of it, so an answer sent after it reaches the client
 * instead of a reset connection. Past `cutoff` bytes the connection is cut: nobody can keep the
 * server reading forever. Answers whether the body ended (false: cut, or the client left).
 */
export function discardBody(request: IncomingMessage, cutoff: number): Promise<boolean> {
  if (request.complete) return Promise.resolve(true);
  return new Promise((resolve) => {
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > cutoff) request.destroy();
    });
    request.once('end', () => resolve(true));
    request.once('close', () => resolve(false));
    request.once('error', () => resolve(false));
    request.resume();
  });
}

/** discardBody for a request that may send up to `maxBodyBytes`: it may send that much and MAX_DISCARDED_BYTES more. */
export function discardRest(request: IncomingMessage, maxBodyBytes: number): Promise<boolean> {
  return discardBody(request, maxBodyBytes + MAX_DISCARDED_BYTES);
}
