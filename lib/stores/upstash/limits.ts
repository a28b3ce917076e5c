import type { LimitCounters, WindowState } from '../limit-counters.ts';

/** Runs a script with its keys and arguments (the store's clock goes first, as ARGV[1]). */
export type RunScript = (script: string, keys: string[], args: string[]) => Promise<unknown>;

/*
 * Limit counters on Redis, each step ONE Lua script (atomic, one round trip, no retries under
 * contention). ARGV[1] is the store's clock and unused here: the limiter's clock (ARGV[2])
 * decides windows and lease expiry, as it does on every other store.
 *   window  hash {start, cur, prev}; the roll and the admission repeat lib/limits/counters.ts
 *           (rolledWindow, windowBound) operation for operation, in doubles as JavaScript does.
 *   leases  sorted set, member = lease id, score = when it expires.
 */
const ADD_TO_WINDOW = `
local now, W, sliding = tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4] == '1'
local max, w, grace = tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7])
local start = math.floor(now / W) * W
local f = redis.call('HMGET', KEYS[1], 'start', 'cur', 'prev')
local st, cur, prev = tonumber(f[1]) or 0, tonumber(f[2]) or 0, tonumber(f[3]) or 0
if st ~= start then
  if st == start - W then prev = cur else prev = 0 end
  cur = 0
  st = start
end
local share = 0
if sliding and prev > 0 then share = prev * (1 - (now - st) / W) end
if cur > math.floor(max - w - share) then return {0, tostring(st), tostring(cur), tostring(prev)} end
redis.call('HSET', KEYS[1], 'start', tostring(st), 'cur', tostring(cur + w), 'prev', tostring(prev))
local life = W
if sliding then life = 2 * W end
redis.call('PEXPIREAT', KEYS[1], st + life + grace)
return {1, tostring(st)}
`;

const SUBTRACT_FROM_WINDOW = `
local f = redis.call('HMGET', KEYS[1], 'start', 'cur')
if tonumber(f[1]) ~= tonumber(ARGV[2]) then return 0 end
redis.call('HSET', KEYS[1], 'cur', tostring(math.max(0, tonumber(f[2]) - tonumber(ARGV[3]))))
return 1
`;

const ADD_LEASE = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[2])
local used = redis.call('ZCARD', KEYS[1])
if used >= tonumber(ARGV[3]) then return {0, used} end
redis.call('ZADD', KEYS[1], ARGV[5], ARGV[4])
local last = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
redis.call('PEXPIREAT', KEYS[1], tonumber(last[2]) + tonumber(ARGV[6]))
return {1, used + 1}
`;

const REMOVE_LEASE = `return redis.call('ZREM', KEYS[1], ARGV[2])`;

export function upstashLimitCounters(run: RunScript, keyOf: (key: string) => string, gcGraceMs: number): LimitCounters {
  const grace = String(gcGraceMs);
  return {
    async addToWindow(key, now, spec, weight) {
      const answer = await run(ADD_TO_WINDOW, [keyOf(key)], [String(now), String(spec.window_ms), spec.sliding ? '1' : '0', String(spec.max), String(weight), grace]);
      const [admitted, start, current, previous] = answerList(answer);
      if (admitted === 1) return { ok: true, window_start: numberOf(start) };
      const state: WindowState = { window_start: numberOf(start), current: numberOf(current), previous: numberOf(previous) };
      return { ok: false, state };
    },
    async subtractFromWindow(key, windowStart, _spec, weight) {
      await run(SUBTRACT_FROM_WINDOW, [keyOf(key)], [String(windowStart), String(weight)]);
    },
    async addLease(key, now, max, lease, until) {
      const [admitted, used] = answerList(await run(ADD_LEASE, [keyOf(key)], [String(now), String(max), lease, String(until), grace]));
      return admitted === 1 ? { ok: true } : { ok: false, used: numberOf(used) };
    },
    async removeLease(key, lease) {
      await run(REMOVE_LEASE, [keyOf(key)], [lease]);
    },
  };
}

function answerList(answer: unknown): unknown[] {
  if (!Array.isArray(answer)) throw new Error(`a limit script answered ${JSON.stringify(answer)} where a list was expected`);
  return answer;
}

function numberOf(value: unknown): number {
  const parsed = Number(value);
  if (!Number.isFinite(parsed)) throw new Error(`a limit script answered ${JSON.stringify(value)} where a number was expected`);
  return parsed;
}
