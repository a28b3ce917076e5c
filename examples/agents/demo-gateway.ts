/**
 * Where the examples find the gateway `npm start` runs: TOOLGATE_URL (default
 * http://127.0.0.1:8787, or PORT) and its key: TOOLGATE_KEY (or TOOLGATE_DEMO_KEY), else the demo
 * key `npm start` wrote to .toolgate/demo-key (under TOOLGATE_DATA_DIR when that is set).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export const GATEWAY_URL = process.env.TOOLGATE_URL ?? `http://127.0.0.1:${process.env.PORT ?? 8787}`;

function demoKey(): string {
  const key = process.env.TOOLGATE_KEY ?? process.env.TOOLGATE_DEMO_KEY;
  if (key) return key;
  const file = join(process.env.TOOLGATE_DATA_DIR ?? '.toolgate', 'demo-key');
  try {
    return readFileSync(file, 'utf8').trim();
  } catch {
    throw new Error(`No demo key in ${file}: run \`npm start\` in this folder first (with the same TOOLGATE_DATA_DIR), or set TOOLGATE_KEY.`);
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
