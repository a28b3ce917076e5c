import { Redis, errors } from '@upstash/redis';
import {
  StoreUnavailableError,
  threadKey,
  type AppendRequest,
  type AuditHead,
  type AuditPage,
  type ClaimOutcome,
  type CommitOutcome,
  type CommitRequest,
  type StateRecord,
  type Store,
  type StoredEnvelope,
  type ThreadRef,
  type TransitionExpectation,
  type TransitionOutcome,
} from '../store.ts';
import { checkPageLimit } from '../page-limit.ts';
import type { LimitCounters } from '../limit-counters.ts';
import { upstashLimitCounters } from './limits.ts';

export interface UpstashStoreOptions {
  /** The database's REST URL (UPSTASH_REDIS_REST_URL). */
  url: string;
  /** The database's REST token (UPSTASH_REDIS_REST_TOKEN). */
  token: string;
  /** Put before every key, so deployments can share a database. Default `toolgate:`. */
  prefix?: string;
  /** The clock expiry is judged by (ms since epoch); Redis's own clock never decides. */
  now?: () => number;
  /** Deadline for one request, retries included. Default 3000 ms. */
  timeoutMs?: number;
  /**
   * Retries after a failed connection. Default 0: a request that failed in flight may have run,
   * and re-running a claim or an append would misreport its outcome; the dispatch layer's own
   * idempotency makes the caller's retry safe instead.
   */
  retries?: number;
  /** How long after `expires_at` Redis may drop a record (tolerates clock skew). Default 5 min. */
  gcGraceMs?: number;
}

/**
 * Store on Upstash Redis over its REST API (Web Standard fetch only: runs on Workers).
 *
 * Keys, under the prefix (user parts URI-encoded, so `/`, `:` and unicode cannot collide):
 *   rec:<key>                  hash {record: JSON, state, owner, expires_at, claimable_after}
 *   audit:<tenant>/<thread>:head  hash {seq, hash}
 *   audit:<tenant>/<thread>:log   sorted set, score = seq, member = envelope JSON (verbatim)
 *   index:<index>              sorted set
 * A record's condition fields sit next to its JSON so the Lua scripts never decode user data
 * (Redis's cjson rejects JSON that JavaScript writes, e.g. a lone surrogate from a truncation).
 */
export class UpstashStore implements Store {
  readonly name: string = 'upstash';
  readonly #redis: Redis;
  readonly #now: () => number;
  readonly #prefix: string;
  readonly #timeoutMs: number;
  readonly #gcGraceMs: number;
  #closed = false;

  constructor(options: UpstashStoreOptions) {
    this.#now = options.now ?? Date.now;
    this.#prefix = options.prefix ?? 'toolgate:';
    this.#timeoutMs = options.timeoutMs ?? 3000;
    this.#gcGraceMs = options.gcGraceMs ?? 300_000;
    this.#redis = new Redis({
      url: options.url,
      token: options.token,
      retry: { retries: options.retries ?? 0, backoff: (attempt) => 50 * 2 ** attempt },
      // A fresh signal per request: an aborted request throws (a fixed signal would not).
      signal: () => AbortSignal.timeout(this.#timeoutMs),
      responseEncoding: 'base64',
      automaticDeserialization: false,
      enableAutoPipelining: false,
      enableTelemetry: false,
      // fetch's `keepalive` flag (not connection reuse) caps request bodies at 64 KiB where the
      // spec is enforced; records and audit batches can be larger.
      keepAlive: false,
    });
  }

  async claim(key: string, record: StateRecord): Promise<ClaimOutcome> {
    return this.#eval(CLAIM, [this.#recordKey(key)], recordArgs(record, this.#gcGraceMs), claimOutcome);
  }

  async transition(key: string, expect: TransitionExpectation, next: StateRecord): Promise<TransitionOutcome> {
    return this.#eval(CHANGE, [this.#recordKey(key)], [...expectArgs(expect), ...recordArgs(next, this.#gcGraceMs)], (answer) => transitionOutcome(tuple(answer, 2), 0));
  }

  async get(key: string): Promise<StateRecord | undefined> {
    const record = await this.#command(['HGET', this.#recordKey(key), 'record'], (raw) => (raw === null ? undefined : parseRecord(raw)));
    return record && record.expires_at !== 0 && record.expires_at <= this.#now() ? undefined : record;
  }

  async put(key: string, record: StateRecord): Promise<void> {
    await this.#eval(PUT, [this.#recordKey(key)], recordArgs(record, this.#gcGraceMs), () => undefined);
  }

  async remove(key: string, expect: TransitionExpectation): Promise<boolean> {
    return this.#eval(CHANGE, [this.#recordKey(key)], [...expectArgs(expect), ...recordArgs(null, this.#gcGraceMs)], (answer) => tuple(answer, 2)[0] === 1);
  }

  async readAuditHead(thread: ThreadRef): Promise<AuditHead | null> {
    return this.#command(['HMGET', this.#auditKey(thread, 'head'), 'seq', 'hash'], (answer) => auditHead(...pair(answer)));
  }

  async listAudit(thread: ThreadRef, page: { after_seq?: number; limit: number }): Promise<AuditPage> {
    checkPageLimit(page.limit, 'listAudit');
    const limit = page.limit;
    // One extra envelope says whether another page follows.
    const envelopes = await this.#command(['ZRANGEBYSCORE', this.#auditKey(thread, 'log'), `(${scoreText(page.after_seq ?? 0)}`, '+inf', 'LIMIT', '0', String(limit + 1)], (raw) => list(raw).map(parseEnvelope));
    const shown = envelopes.slice(0, limit);
    const last = shown.at(-1);
    return { envelopes: shown, ...(envelopes.length > limit && last ? { next_after_seq: last.seq } : {}) };
  }

  async claimWithHead(key: string, record: StateRecord, thread: ThreadRef): Promise<{ claim: ClaimOutcome; head: AuditHead | null }> {
    return this.#eval(CLAIM, [this.#recordKey(key), this.#auditKey(thread, 'head')], recordArgs(record, this.#gcGraceMs), (answer) => {
      const [claimed, existing, seq, hash] = tuple(answer, 4);
      return { claim: claimOutcome([claimed, existing]), head: auditHead(seq, hash) };
    });
  }

  async commit(request: CommitRequest): Promise<CommitOutcome> {
    if (!request.record && !request.append) return {};
    const keys: string[] = [];
    const args: string[] = [];
    if (request.record) {
      keys.push(this.#recordKey(request.record.key));
      args.push('1', ...expectArgs(request.record.expect), ...recordArgs(request.record.next, this.#gcGraceMs));
    } else args.push('0');
    if (request.append) {
      keys.push(this.#auditKey(request.append.thread, 'head'), this.#auditKey(request.append.thread, 'log'));
      args.push('1', ...appendArgs(request.append));
    } else args.push('0');
    return this.#eval(COMMIT, keys, args, (answer) => commitOutcome(tuple(answer, 5)));
  }

  async addToIndex(index: string, member: string, score: number): Promise<void> {
    if (Number.isNaN(score)) throw new RangeError(`addToIndex(${JSON.stringify(index)}): the score is NaN; pass a number`);
    await this.#command(['ZADD', this.#indexKey(index), scoreText(score), member], () => undefined);
  }

  async removeFromIndex(index: string, member: string): Promise<void> {
    await this.#command(['ZREM', this.#indexKey(index), member], () => undefined);
  }

  async listIndex(index: string, page: { after_score?: number; limit: number }): Promise<Array<{ member: string; score: number }>> {
    checkPageLimit(page.limit, 'listIndex');
    const limit = page.limit;
    const min = page.after_score === undefined ? '-inf' : `(${scoreText(page.after_score)}`;
    return this.#command(['ZRANGEBYSCORE', this.#indexKey(index), min, '+inf', 'WITHSCORES', 'LIMIT', '0', String(limit)], indexEntries);
  }

  /** Quota and rate-limit counters: one Lua script per step (upstash-limits.ts). */
  limitCounters(): LimitCounters {
    return upstashLimitCounters((script, keys, args) => this.#eval(script, keys, args, (answer) => answer), (key) => `${this.#prefix}lim:${encodeURIComponent(key)}`, this.#gcGraceMs);
  }

  async close(): Promise<void> {
    this.#closed = true; // fetch keeps no connection of ours open; later calls are refused
  }

  #recordKey(key: string): string {
    return `${this.#prefix}rec:${encodeURIComponent(key)}`;
  }

  #auditKey(thread: ThreadRef, part: 'head' | 'log'): string {
    return `${this.#prefix}audit:${threadKey(thread)}:${part}`;
  }

  #indexKey(index: string): string {
    return `${this.#prefix}index:${encodeURIComponent(index)}`;
  }

  /** Runs a script; the caller's clock goes first so every script judges expiry by it. */
  #eval<T>(script: string, keys: string[], args: string[], decode: (answer: unknown) => T): Promise<T> {
    return this.#request(() => this.#redis.eval<string[], unknown>(script, keys, [String(this.#now()), ...args]), decode);
  }

  #command<T>(command: [string, ...string[]], decode: (answer: unknown) => T): Promise<T> {
    return this.#request(() => this.#redis.exec<unknown>(command), decode);
  }

  /**
   * Every call goes through here: any failure, however it looks (transport, HTTP, Redis error,
   * an answer of the wrong shape), becomes StoreUnavailableError.
   */
  async #request<T>(send: () => Promise<unknown>, decode: (answer: unknown) => T): Promise<T> {
    if (this.#closed) throw new StoreUnavailableError(this.name, new Error('this UpstashStore was closed; build a new one'));
    try {
      return decode(await send());
    } catch (error) {
      throw new StoreUnavailableError(this.name, new Error(explainFailure(error, this.#timeoutMs), { cause: error }));
    }
  }
}

// ---- Lua. Arguments are read in order through a cursor; ARGV[1] is always the caller's clock.

const PRELUDE = `
local pos = 0
local function arg() pos = pos + 1 return ARGV[pos] end
local function args(n) local t = {} for i = 1, n do t[i] = arg() end return t end
local now = tonumber(arg())

local function load(key)
  local f = redis.call('HMGET', key, 'state', 'owner', 'expires_at', 'claimable_after')
  if not f[1] then return nil end
  return { state = f[1], owner = f[2], expires_at = tonumber(f[3]), claimable_after = f[4] and tonumber(f[4]) }
end
local function expired(r) return r.expires_at ~= 0 and r.expires_at <= now end
local function live(r) return not expired(r) and (not r.claimable_after or r.claimable_after > now) end
local function matches(r, e)
  if not r or expired(r) then return false end
  if e.owner and r.owner ~= e.owner then return false end
  for _, s in ipairs(e.states) do if r.state == s then return true end end
  return false
end

local function readExpect()
  local hasOwner, owner = arg(), arg()
  return { owner = hasOwner == '1' and owner or nil, states = args(tonumber(arg())) }
end
local function readNext()
  if arg() == '0' then return nil end
  local gcAt = arg()
  return { gcAt = gcAt, fields = args(tonumber(arg())) }
end
local function write(key, rec)
  redis.call('DEL', key)
  for i = 1, #rec.fields, 2 do redis.call('HSET', key, rec.fields[i], rec.fields[i + 1]) end
  if rec.gcAt ~= '0' then redis.call('PEXPIREAT', key, rec.gcAt) end
end
-- Writes (or deletes, rec = nil) when the expectation holds; else returns the unexpired record.
local function change(key, expect, rec)
  local current = load(key)
  if not matches(current, expect) then
    if current and not expired(current) then return 0, redis.call('HGET', key, 'record') end
    return 0, false
  end
  if rec then write(key, rec) else redis.call('DEL', key) end
  return 1, false
end
`;

/** KEYS: record [, audit head]. ARGV: now, record. Returns {claimed, existing, head seq, head hash}. */
const CLAIM = `${PRELUDE}
local rec = readNext()
local current = load(KEYS[1])
local out = {1, false, false, false}
if current and live(current) then out[1], out[2] = 0, redis.call('HGET', KEYS[1], 'record')
else write(KEYS[1], rec) end
if KEYS[2] then
  local head = redis.call('HMGET', KEYS[2], 'seq', 'hash')
  out[3], out[4] = head[1], head[2]
end
return out
`;

/** KEYS: record. ARGV: now, expectation, next record or none (delete). Returns {ok, current}. */
const CHANGE = `${PRELUDE}
local expect = readExpect()
local ok, current = change(KEYS[1], expect, readNext())
return {ok, current}
`;

/** KEYS: record. ARGV: now, record. An unconditional write. */
const PUT = `${PRELUDE}
write(KEYS[1], readNext())
return 1
`;

/**
 * KEYS: [record] [audit head, audit log]. ARGV: now, record part flag [expectation, next],
 * append flag [expected head, new head, envelopes]. Each part on its own condition.
 * Returns {record ok | -1, record current, append ok | -1, head seq, head hash}.
 */
const COMMIT = `${PRELUDE}
local function append(headKey, logKey)
  local hasExpected, expSeq, expHash, newSeq, newHash = arg(), arg(), arg(), arg(), arg()
  local entries = args(2 * tonumber(arg()))
  local head = redis.call('HMGET', headKey, 'seq', 'hash')
  local seq, hash = head[1], head[2]
  local same = (hasExpected == '0' and not seq) or (hasExpected == '1' and seq == expSeq and hash == expHash)
  if not same then return 0, seq, hash end
  if #entries == 0 then return 1, seq, hash end
  for i = 1, #entries, 2 do redis.call('ZADD', logKey, entries[i], entries[i + 1]) end
  redis.call('HSET', headKey, 'seq', newSeq, 'hash', newHash)
  return 1, newSeq, newHash
end
local out = {-1, false, -1, false, false}
local k = 1
if arg() == '1' then
  local expect = readExpect()
  out[1], out[2] = change(KEYS[1], expect, readNext())
  k = 2
end
if arg() == '1' then out[3], out[4], out[5] = append(KEYS[k], KEYS[k + 1]) end
return out
`;

// ---- Arguments. States and owners travel JSON-encoded so comparisons are exact for any string.

function recordArgs(record: StateRecord | null, gcGraceMs: number): string[] {
  if (record === null) return ['0'];
  const fields = ['record', JSON.stringify(record), 'state', JSON.stringify(record.state), 'expires_at', String(record.expires_at)];
  if (record.owner !== undefined) fields.push('owner', JSON.stringify(record.owner));
  if (record.claimable_after !== undefined) fields.push('claimable_after', String(record.claimable_after));
  // Redis may drop the key a grace period after expiry; until then the comparisons decide.
  const gcAt = record.expires_at > 0 ? String(Math.floor(record.expires_at + gcGraceMs)) : '0';
  return ['1', gcAt, String(fields.length), ...fields];
}

function expectArgs(expect: TransitionExpectation): string[] {
  const states = (Array.isArray(expect.state) ? expect.state : [expect.state]).map((state) => JSON.stringify(state));
  const owner = expect.owner === undefined ? ['0', ''] : ['1', JSON.stringify(expect.owner)];
  return [...owner, String(states.length), ...states];
}

function appendArgs({ expected, envelopes }: AppendRequest): string[] {
  const last = envelopes.at(-1);
  const head = expected ? ['1', String(expected.seq), expected.hash] : ['0', '', ''];
  const next = last ? [String(last.seq), last.hash] : ['', ''];
  return [...head, ...next, String(envelopes.length), ...envelopes.flatMap((e) => [scoreText(e.seq), JSON.stringify(e)])];
}

// ---- Answers. Anything not shaped as the scripts promise is a broken store, not a result.

class UnexpectedAnswer extends Error {}

function claimOutcome(answer: unknown): ClaimOutcome {
  const [claimed, existing] = tuple(answer, 2);
  return claimed === 1 ? { claimed: true } : { claimed: false, existing: parseRecord(existing) };
}

function transitionOutcome(answer: unknown[], at: number): TransitionOutcome {
  return answer[at] === 1 ? { ok: true } : { ok: false, current: answer[at + 1] === null ? undefined : parseRecord(answer[at + 1]) };
}

function commitOutcome(answer: unknown[]): CommitOutcome {
  const outcome: CommitOutcome = {};
  if (answer[0] !== -1) outcome.record = transitionOutcome(answer, 0);
  if (answer[2] === 1) outcome.append = { ok: true, head: auditHead(answer[3], answer[4]) } as CommitOutcome['append'];
  else if (answer[2] === 0) outcome.append = { ok: false, head: auditHead(answer[3], answer[4]) };
  return outcome;
}

function auditHead(seq: unknown, hash: unknown): AuditHead | null {
  if (seq === null) return null;
  const parsed = Number(text(seq));
  if (!Number.isFinite(parsed)) throw new UnexpectedAnswer(`an audit head with seq ${JSON.stringify(seq)}`);
  return { seq: parsed, hash: text(hash) };
}

function parseRecord(raw: unknown): StateRecord {
  const value = parseJson(raw);
  if (typeof value !== 'object' || value === null || typeof (value as StateRecord).state !== 'string' || typeof (value as StateRecord).expires_at !== 'number') {
    throw new UnexpectedAnswer(`a record that is not a record: ${preview(raw)}`);
  }
  return value as StateRecord;
}

function parseEnvelope(raw: unknown): StoredEnvelope {
  const value = parseJson(raw);
  if (typeof value !== 'object' || value === null || typeof (value as StoredEnvelope).seq !== 'number') {
    throw new UnexpectedAnswer(`an audit envelope without a seq: ${preview(raw)}`);
  }
  return value as StoredEnvelope;
}

function parseJson(raw: unknown): unknown {
  try {
    return JSON.parse(text(raw));
  } catch (error) {
    if (error instanceof UnexpectedAnswer) throw error;
    throw new UnexpectedAnswer(`stored text that is not JSON: ${preview(raw)}`);
  }
}

function tuple(value: unknown, length: number): unknown[] {
  if (!Array.isArray(value) || value.length < length) throw new UnexpectedAnswer(`${preview(value)} where a list of ${length} was expected`);
  return value;
}

function pair(value: unknown): [unknown, unknown] {
  const [first, second] = tuple(value, 2);
  return [first, second];
}

/** WITHSCORES answers member, score, member, score, ... */
function indexEntries(answer: unknown): Array<{ member: string; score: number }> {
  const flat = list(answer);
  const entries: Array<{ member: string; score: number }> = [];
  for (let i = 0; i + 1 < flat.length; i += 2) entries.push({ member: text(flat[i]), score: parseScore(flat[i + 1]) });
  return entries;
}

function list(value: unknown): unknown[] {
  if (!Array.isArray(value)) throw new UnexpectedAnswer(`${preview(value)} where a list was expected`);
  return value;
}

function text(value: unknown): string {
  if (typeof value !== 'string') throw new UnexpectedAnswer(`${preview(value)} where text was expected`);
  return value;
}

/** Redis spells infinite scores `inf`; JavaScript spells them `Infinity`. */
function scoreText(score: number): string {
  if (score === Infinity) return '+inf';
  if (score === -Infinity) return '-inf';
  return String(score);
}

function parseScore(value: unknown): number {
  const raw = text(value).toLowerCase();
  const score = raw === 'inf' || raw === '+inf' ? Infinity : raw === '-inf' ? -Infinity : Number(raw);
  if (Number.isNaN(score)) throw new UnexpectedAnswer(`an index score ${JSON.stringify(value)}`);
  return score;
}

function preview(value: unknown): string {
  const shown = JSON.stringify(value) ?? String(value);
  return shown.length > 120 ? `${shown.slice(0, 120)}…` : shown;
}

// ---- Failures, phrased for whoever reads the `unavailable` answer.

function explainFailure(error: unknown, timeoutMs: number): string {
  if (error instanceof UnexpectedAnswer) return `Upstash answered ${error.message}`;
  if (error instanceof errors.UpstashJSONParseError) {
    return `the Upstash REST URL answered something that is not JSON (${withoutCommand(error.message)}); check that UPSTASH_REDIS_REST_URL is the database's REST URL`;
  }
  if (error instanceof errors.UpstashError) return explainRedisError(withoutCommand(error.message));
  if (isTimeout(error)) return `no answer from Upstash within ${timeoutMs} ms; check the database's status in the Upstash console, or raise the store's timeoutMs`;
  // What is left is fetch failing: "fetch failed" on Node, "Network connection lost." on workerd.
  const message = error instanceof Error ? `${error.message.replace(/\.$/, '')}${causeCode(error)}` : String(error);
  return `the request to the Upstash REST URL failed: ${message}; check UPSTASH_REDIS_REST_URL and the network`;
}

/** The per-request AbortSignal.timeout fired (a DOMException, which is not an Error everywhere). */
function isTimeout(error: unknown): boolean {
  const name = typeof error === 'object' && error !== null && 'name' in error ? error.name : undefined;
  return name === 'TimeoutError' || name === 'AbortError';
}

function explainRedisError(message: string): string {
  if (/^Unauthorized|WRONGPASS/i.test(message)) {
    return `Upstash refused the REST token (${message}); set UPSTASH_REDIS_REST_TOKEN to the database's REST token (Upstash console → your database → REST API), not the Redis password`;
  }
  if (/^NOPERM/i.test(message)) return `the REST token may not run this command (${message}); use the database's standard token, not the read-only one`;
  return `Upstash answered an error: ${message}`;
}

/** @upstash/redis appends the whole command to HTTP errors: it holds records and scripts, so drop it. */
function withoutCommand(message: string): string {
  const at = message.indexOf(', command was: ');
  return at === -1 ? message : message.slice(0, at);
}

function causeCode(error: Error): string {
  const cause: unknown = error.cause;
  if (typeof cause !== 'object' || cause === null) return '';
  const code = 'code' in cause ? cause.code : 'message' in cause ? cause.message : undefined;
  return typeof code === 'string' ? ` (${code})` : '';
}
