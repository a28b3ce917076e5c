import type { RuntimeTarget } from './fixtures.ts';

/** Sends the scenarios' requests over real HTTP to a gateway listening at `origin`. */
export function httpTarget(origin: string): Pick<RuntimeTarget, 'fetch'> {
  return {
    fetch: (request) => {
      const url = new URL(request.url);
      return fetch(`${origin}${url.pathname}${url.search}`, { method: request.method, headers: request.headers, body: request.body, redirect: request.redirect, duplex: 'half' } as RequestInit);
    },
  };
}
