/**
 * Where the examples find the gateway `npm start` runs: TOOLGATE_URL (default
 * http://127.0.0.1:8787, or PORT) and the demo key (TOOLGATE_DEMO_KEY, or the key `npm start`
 * wrote to .toolgate/demo-key).
 */
import { readFileSync } from 'node:fs';

export const GATEWAY_URL = process.env.TOOLGATE_URL ?? `http://127.0.0.1:${process.env.PORT ?? 8787}`;

function demoKey(): string {
  if (process.env.TOOLGATE_DEMO_KEY) return process.env.TOOLGATE_DEMO_KEY;
  try {
    return readFileSync('.toolgate/demo-key', 'utf8').trim();
  } catch {
    throw new Error('No demo key: run `npm start` in this folder first (it writes .toolgate/demo-key), or set TOOLGATE_DEMO_KEY.');
  }
}

/** A request to toolgate with the demo key; a JSON body makes it a POST. Throws on an HTTP error. */
export async function toolgate<T>(path: string, body?: unknown): Promise<T> {
  const response = await fetch(`${GATEWAY_URL}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { authorization: `Bearer ${demoKey()}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const answer = await response.json();
  if (!response.ok) throw new Error(`${path}: HTTP ${response.status} ${JSON.stringify(answer)}`);
  return answer as T;
}
