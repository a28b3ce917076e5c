import { expect } from 'vitest';
import type { testGateway } from '../helpers/gateway.ts';

/**
 * A browser following a connect link through the gateway's own pages, the provider's consent
 * page skipped: the start page's redirect (state, binding cookie), then the callback as the
 * provider sends the browser back with its `answer` (a code, or an error). The callback's answer.
 */
export async function followConnectLink(gw: Awaited<ReturnType<typeof testGateway>>, link: string, answer = 'code=the-code'): Promise<Response> {
  const url = new URL(link);
  const started = await gw.request(url.pathname + url.search);
  expect(started.status).toBe(302);
  const state = new URL(started.headers.get('location')!).searchParams.get('state')!;
  const cookie = started.headers.get('set-cookie')!.split(';')[0]!;
  return gw.request(`${url.pathname}/callback?state=${state}&${answer}`, { headers: { cookie } });
}
