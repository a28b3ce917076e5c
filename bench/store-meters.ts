/** Counting what a store costs a dispatch: Store method calls, HTTP requests, sequential round trips. */
import type { Store } from '../lib/stores/store.ts';

/**
 * Wraps a fetch and counts the requests through it. A request that starts while another is in
 * flight shares its round trip (DynamoDB's claimWithHead sends two at once), so `roundTrips`
 * counts the requests that started with nothing in flight: the network waits a call sits out.
 */
export class RoundTripMeter {
  requests = 0;
  roundTrips = 0;
  /** Set to label each request (parsing a body costs time, so only while describing one call). */
  labelling = false;
  #labels: Array<{ label: string; roundTrip: number }> = [];
  #inFlight = 0;
  readonly #inner: typeof fetch;
  readonly #describe: (input: RequestInfo | URL, init: RequestInit | undefined) => string;

  constructor(inner: typeof fetch, describe: (input: RequestInfo | URL, init: RequestInit | undefined) => string) {
    this.#inner = inner;
    this.#describe = describe;
  }

  readonly fetch: typeof fetch = async (input, init) => {
    this.requests++;
    if (this.#inFlight === 0) this.roundTrips++;
    if (this.labelling) this.#labels.push({ label: this.#describe(input, init), roundTrip: this.roundTrips });
    this.#inFlight++;
    try {
      return await this.#inner(input, init);
    } finally {
      this.#inFlight--;
    }
  };

  /** The labelled requests, `+` between those sharing a round trip, ` | ` between round trips. */
  describeRequests(): string {
    const trips = new Map<number, string[]>();
    for (const { label, roundTrip } of this.#labels) trips.set(roundTrip, [...(trips.get(roundTrip) ?? []), label]);
    return [...trips.values()].map((labels) => labels.join('+')).join(' | ');
  }

  reset(): void {
    this.requests = 0;
    this.roundTrips = 0;
    this.#labels = [];
  }
}

/** The DynamoDB operation of a client request (its X-Amz-Target header). */
export function dynamoDbOperation(input: RequestInfo | URL, init: RequestInit | undefined): string {
  const headers = input instanceof Request ? input.headers : new Headers(init?.headers);
  return headers.get('x-amz-target')?.split('.')[1] ?? '?';
}

/** The Redis command of an @upstash/redis request (its body is the command as a JSON array). */
export function upstashCommand(_input: RequestInfo | URL, init: RequestInit | undefined): string {
  if (typeof init?.body !== 'string') return '?';
  const command: unknown = JSON.parse(init.body);
  return Array.isArray(command) && typeof command[0] === 'string' ? command[0].toUpperCase() : '?';
}

/** Store method calls by name; `calls` lists them in order since the last reset. */
export class StoreCallLog {
  calls: string[] = [];

  reset(): void {
    this.calls = [];
  }
}

/**
 * The same store, with every method call logged (a Proxy, so no adapter method is missed).
 * Methods run with the real store as `this`: the adapters keep their state in private fields.
 */
export function loggedStore(store: Store, log: StoreCallLog): Store {
  return new Proxy(store, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function' || typeof property !== 'string') return value;
      return (...args: unknown[]): unknown => {
        log.calls.push(property);
        return Reflect.apply(value, target, args);
      };
    },
  });
}

/** Runs `body` with `replacement` as the global fetch (@upstash/redis takes no fetch option), then puts the original back. */
export async function withGlobalFetch<T>(replacement: typeof fetch, body: () => Promise<T>): Promise<T> {
  const original = globalThis.fetch;
  globalThis.fetch = replacement;
  try {
    return await body();
  } finally {
    globalThis.fetch = original;
  }
}
