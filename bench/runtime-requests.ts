/**
 * The two requests the `runtimes` benchmark sends every runtime: one echo dispatch of the demo
 * tenant, and GET /healthz (the cheapest request, the baseline). Every answer is checked, so a
 * figure never comes from error responses.
 */

/** Seeds the demo tenant with this key wherever TOOLGATE_DEMO_KEY is set. */
export const DEMO_KEY = 'tg_bench_demo_key_0123456789abcdef';
/** The demo manifest names its exec secret DEMO_EXEC_SECRET: the operator grants it to "demo" wherever the demo is seeded. */
export const DEMO_GRANTS = { TOOLGATE_TENANT_SECRETS: 'demo:DEMO_EXEC_SECRET' };
const THREAD_ID = 'b';

/** A fresh call id per request: a repeated one could be answered from the store (a replay) instead of dispatched. */
export function dispatchRequest(origin: string, sequence: number): Request {
  const body = { thread_id: THREAD_ID, calls: [{ call_id: `c${sequence}`, name: 'echo', arguments: { text: 'hi' } }] };
  return new Request(new URL('/v1/dispatch', origin), {
    method: 'POST',
    headers: { authorization: `Bearer ${DEMO_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

export function healthzRequest(origin: string): Request {
  return new Request(new URL('/healthz', origin));
}

interface DispatchAnswer {
  results?: Array<{ call_id?: string; status?: string; content?: unknown }>;
}

/** Throws unless the echo call of `sequence` came back ok with its text. */
export async function expectDispatched(response: Response, sequence: number): Promise<void> {
  const text = await response.text();
  if (response.status !== 200) throw new Error(`dispatch answered ${response.status}: ${text}`);
  const result = (JSON.parse(text) as DispatchAnswer).results?.[0];
  if (result?.call_id !== `c${sequence}` || result.status !== 'ok' || result.content !== 'hi') throw new Error(`dispatch did not echo: ${text}`);
}

export async function expectHealthy(response: Response): Promise<void> {
  const text = await response.text();
  if (response.status !== 200) throw new Error(`GET /healthz answered ${response.status}: ${text}`);
}
