import { UpstashStore, type UpstashStoreOptions } from './upstash-store.ts';

const HOW_TO_SET: Record<string, string> = {
  UPSTASH_REDIS_REST_URL: "set it to your Upstash database's REST URL (Upstash console → your database → REST API), e.g. `export UPSTASH_REDIS_REST_URL=https://…upstash.io` or, on Workers, `wrangler secret put UPSTASH_REDIS_REST_URL`",
  UPSTASH_REDIS_REST_TOKEN: "set it to your Upstash database's REST token (Upstash console → your database → REST API; the token, not the Redis password), e.g. `export UPSTASH_REDIS_REST_TOKEN=…` or, on Workers, `wrangler secret put UPSTASH_REDIS_REST_TOKEN`",
};

/**
 * An UpstashStore from environment variables or Worker bindings: UPSTASH_REDIS_REST_URL and
 * UPSTASH_REDIS_REST_TOKEN (required), TOOLGATE_REDIS_PREFIX (optional key prefix).
 * `options` passes the rest (clock, timeout) through.
 */
export function upstashStoreFromEnv(env: Readonly<Record<string, unknown>>, options: Omit<UpstashStoreOptions, 'url' | 'token' | 'prefix'> = {}): UpstashStore {
  const url = required(env, 'UPSTASH_REDIS_REST_URL');
  if (!/^https?:\/\/[^\s/?#]+/.test(url)) {
    // Not echoed: a token pasted into the wrong variable must not end up in logs.
    throw new Error(`UPSTASH_REDIS_REST_URL is not an http(s) URL: ${HOW_TO_SET.UPSTASH_REDIS_REST_URL}`);
  }
  const token = required(env, 'UPSTASH_REDIS_REST_TOKEN');
  const prefix = optional(env, 'TOOLGATE_REDIS_PREFIX');
  return new UpstashStore({ ...options, url, token, ...(prefix === undefined ? {} : { prefix }) });
}

/** Surrounding whitespace (a newline piped into `wrangler secret put`) is dropped, not sent. */
function required(env: Readonly<Record<string, unknown>>, name: string): string {
  const value = env[name];
  if (value === undefined || value === null) throw new Error(`${name} is not set: ${HOW_TO_SET[name]}`);
  if (typeof value !== 'string') throw new Error(`${name} is not text (found a ${typeof value} binding): ${HOW_TO_SET[name]}`);
  if (value.trim() === '') throw new Error(`${name} is set but empty: ${HOW_TO_SET[name]}`);
  return value.trim();
}

function optional(env: Readonly<Record<string, unknown>>, name: string): string | undefined {
  const value = env[name];
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') throw new Error(`${name} is not text (found a ${typeof value} binding): set it to a key prefix such as "toolgate:" or leave it unset`);
  return value;
}
