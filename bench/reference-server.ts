/**
 * The deployed-throughput module's yardstick (issue 26): the durable work of one /v1/dispatch
 * call of `echo`, written plainly, in a process of its own as `toolgate serve` is. Per request:
 * the API key looked up by its SHA-256; the arguments checked by ajv; one SQLite transaction
 * (WAL mode) holding the call's idempotency record and three hash-chained audit envelopes of
 * canonical JSON; the answer sent only once a sync of the WAL that began after the COMMIT has
 * finished (one fsync per group of commits, on the thread pool); one JSON log line on stdout.
 * It answers the same JSON as toolgate's dispatch, so the same load and checks apply.
 *
 * REFERENCE_DATA_DIR: where its SQLite file goes; REFERENCE_KEY: the one valid API key.
 */
import { serve } from '@hono/node-server';
import { Ajv } from 'ajv';
import { Hono } from 'hono';
import { createHash, randomUUID } from 'node:crypto';
import { fsync, mkdirSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';

const dataDir = process.env.REFERENCE_DATA_DIR ?? '.reference';
const apiKey = process.env.REFERENCE_KEY ?? 'tg_reference_key';
const TENANT = 'demo';
const IDEMPOTENCY_TTL_MS = 24 * 3600_000;

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** JSON with object keys sorted, so the same value always hashes the same. */
function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record).filter((key) => record[key] !== undefined).sort();
  return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key])}`).join(',')}}`;
}

mkdirSync(dataDir, { recursive: true });
const databasePath = join(dataDir, 'reference.db');
const db = new DatabaseSync(databasePath);
db.exec(`
  PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;
  CREATE TABLE IF NOT EXISTS api_keys (hash TEXT PRIMARY KEY, tenant TEXT NOT NULL, principal TEXT NOT NULL);
  CREATE TABLE IF NOT EXISTS calls (key TEXT PRIMARY KEY, args_hash TEXT NOT NULL, result TEXT NOT NULL, expires_at INTEGER NOT NULL);
  CREATE TABLE IF NOT EXISTS audit (tenant TEXT NOT NULL, thread_id TEXT NOT NULL, seq INTEGER NOT NULL, hash TEXT NOT NULL, envelope TEXT NOT NULL, PRIMARY KEY (tenant, thread_id, seq));
`);
db.prepare('INSERT OR REPLACE INTO api_keys (hash, tenant, principal) VALUES (?, ?, ?)').run(sha256(apiKey), TENANT, 'bench');

const findKey = db.prepare('SELECT tenant, principal FROM api_keys WHERE hash = ?');
const findCall = db.prepare('SELECT args_hash, result FROM calls WHERE key = ? AND expires_at > ?');
const saveCall = db.prepare('INSERT OR REPLACE INTO calls (key, args_hash, result, expires_at) VALUES (?, ?, ?, ?)');
const findHead = db.prepare('SELECT seq, hash FROM audit WHERE tenant = ? AND thread_id = ? ORDER BY seq DESC LIMIT 1');
const appendEnvelope = db.prepare('INSERT INTO audit (tenant, thread_id, seq, hash, envelope) VALUES (?, ?, ?, ?, ?)');

/** Group commit of the WAL: one fsync at a time; whoever committed before a sync began is answered when it ends. */
const walFd = openSync(`${databasePath}-wal`, 'r');
let waiting: Array<(error: Error | null) => void> = [];
let syncing = false;
function durable(): Promise<void> {
  return new Promise((resolve, reject) => {
    waiting.push((error) => (error ? reject(error) : resolve()));
    if (!syncing) syncNext();
  });
}
function syncNext(): void {
  const batch = waiting;
  waiting = [];
  if (batch.length === 0) return void (syncing = false);
  syncing = true;
  fsync(walFd, (error) => {
    for (const settle of batch) settle(error);
    syncNext();
  });
}

const ajv = new Ajv();
const validateEcho = ajv.compile({ type: 'object', properties: { text: { type: 'string' } }, required: ['text'], additionalProperties: false });

interface Call {
  call_id: string;
  name: string;
  arguments: unknown;
}

/** Records one call: its idempotency record and three chained envelopes, in one transaction. Returns its result, or the stored one. */
function recordCall(principal: string, threadId: string, call: Call) {
  const argsHash = sha256(canonicalJson(call.arguments));
  const key = `${TENANT}/${threadId}/${call.call_id}`;
  db.exec('BEGIN IMMEDIATE');
  try {
    const stored = findCall.get(key, Date.now()) as { args_hash: string; result: string } | undefined;
    if (stored) {
      db.exec('COMMIT');
      return stored.args_hash === argsHash ? { ...JSON.parse(stored.result), replayed: true } : { call_id: call.call_id, name: call.name, status: 'conflict', is_error: true, content: 'call_id reused with other arguments' };
    }
    const started = performance.now();
    const valid = call.name === 'echo' && validateEcho(call.arguments);
    const text = valid ? String((call.arguments as { text: string }).text) : `invalid arguments: ${ajv.errorsText(validateEcho.errors)}`;
    const result = { call_id: call.call_id, name: call.name, status: valid ? 'ok' : 'invalid_arguments', is_error: !valid, content: text, truncated: false, duration_ms: performance.now() - started };
    saveCall.run(key, argsHash, JSON.stringify(result), Date.now() + IDEMPOTENCY_TTL_MS);
    let head = findHead.get(TENANT, threadId) as { seq: number; hash: string } | undefined;
    const time = new Date().toISOString();
    const drafts = [
      { type: 'tool.call.request', data: { arguments: call.arguments } },
      { type: 'tool.call.decision', data: { decision: valid ? 'allowed' : 'rejected' } },
      { type: 'tool.call.result', data: result },
    ];
    for (const draft of drafts) {
      const body = { id: randomUUID(), ...draft, tenant: TENANT, thread_id: threadId, call_id: call.call_id, tool: call.name, principal, time, args_hash: argsHash, seq: (head?.seq ?? 0) + 1, prev_hash: head?.hash ?? null };
      const hash = sha256(canonicalJson(body));
      appendEnvelope.run(TENANT, threadId, body.seq, hash, JSON.stringify({ ...body, hash }));
      head = { seq: body.seq, hash };
    }
    db.exec('COMMIT');
    return result;
  } catch (error) {
    if (db.isTransaction) db.exec('ROLLBACK');
    throw error;
  }
}

const app = new Hono();
app.post('/v1/dispatch', async (c) => {
  const token = /^Bearer (.+)$/.exec(c.req.header('authorization') ?? '')?.[1];
  const key = token ? (findKey.get(sha256(token)) as { tenant: string; principal: string } | undefined) : undefined;
  if (!key) return c.json({ error: { code: 'unauthorized', message: 'send a valid API key' } }, 401);
  const body = (await c.req.json()) as { thread_id?: unknown; calls?: Call[] };
  const call = body.calls?.[0];
  if (typeof body.thread_id !== 'string' || !call || typeof call.call_id !== 'string' || typeof call.name !== 'string') {
    return c.json({ error: { code: 'invalid_request', message: 'send {thread_id, calls: [{call_id, name, arguments}]}' } }, 400);
  }
  const result = recordCall(key.principal, body.thread_id, call);
  await durable();
  process.stdout.write(`${JSON.stringify({ time: new Date().toISOString(), event: 'tools.dispatch.completed', tenant: key.tenant, thread_id: body.thread_id, call_id: call.call_id, name: call.name, status: result.status, duration_ms: result.duration_ms })}\n`);
  return c.json({ thread_id: body.thread_id, results: [result] });
});

serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => console.log(`reference server listening on http://127.0.0.1:${info.port}`));
// Stopped by the benchmark: end normally (what is committed is synced; --cpu-prof writes its profile).
process.once('SIGTERM', () => process.exit(0));
