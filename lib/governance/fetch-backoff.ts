import type { Fetch } from '../egress/fetch.ts';

/** A request not sent because the same endpoint failed moments ago; the message says how it failed. */
export class FetchBackoffError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FetchBackoffError';
  }
}

/**
 * A fetch that, once a request failed (it threw, or answered anything but 200), sends nothing
 * for `backoffMs` and throws FetchBackoffError instead. An identity provider that is down would
 * otherwise be asked again by every request carrying a token, and anyone can send those: the
 * gateway must not turn unauthenticated traffic into a storm of requests to the provider.
 */
export function fetchWithBackoff(fetch: Fetch, backoffMs: number, now: () => number = Date.now): Fetch {
  let failed: { until: number; why: string } | undefined;
  const fail = (why: string) => {
    failed = { until: now() + backoffMs, why };
  };
  return async (input, init) => {
    if (failed && now() < failed.until) {
      throw new FetchBackoffError(`${failed.why}; not asked again for ${Math.ceil((failed.until - now()) / 1000)} s`);
    }
    let response: Response;
    try {
      response = await fetch(input, init);
    } catch (error) {
      fail(`the last request failed (${(error as Error).message})`);
      throw error;
    }
    if (response.status !== 200) fail(`the last request answered HTTP ${response.status}`);
    return response;
  };
}
