import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Redis, ReplyError } from 'ioredis';
import { readBody } from './read-body.ts';

/** One HTTP request as the bridge saw it: tests count round trips with these. */
export interface BridgeRequest {
  path: string;
  status: number;
  /** Command names in the request (one for `POST /`, several for a pipeline or transaction). */
  commands: string[];
  encoding: string | undefined;
}

export interface UpstashBridge {
  url: string;
  token: string;
  /** Every request received, in arrival order. */
  requests: BridgeRequest[];
  close(): Promise<void>;
}

type Reply = { status: number; body: unknown };
type Command = Array<string | Buffer>;

/**
 * Upstash's REST protocol in front of a real redis-server, for tests and local development:
 * `POST /` (one command), `POST /pipeline`, `POST /multi-exec`, Bearer-token auth, and the
 * `Upstash-Encoding: base64` answer encoding that @upstash/redis asks for by default.
 */
export async function startUpstashBridge(options: { redisUrl: string; token: string; port?: number }): Promise<UpstashBridge> {
  const redis = await connectRedis(options.redisUrl);
  const requests: BridgeRequest[] = [];
  const server = createServer((req, res) => {
    serve(req, res, redis, options.token, requests).catch(() => res.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    token: options.token,
    requests,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      redis.disconnect();
    },
  };
}

/**
 * RESP2, because Upstash answers in RESP2 shapes (ioredis would otherwise speak RESP3 and, for
 * instance, pair up WITHSCORES replies). No offline queue and no per-request retries: while
 * redis-server is down every command fails at once (the bridge answers 503) instead of waiting
 * for a reconnect; it still reconnects in the background, so a restarted server on the same
 * port is picked up again.
 */
async function connectRedis(url: string): Promise<Redis> {
  const redis = new Redis(url, { protocol: 2, lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 0, retryStrategy: () => 100 });
  redis.on('error', () => {}); // connection loss is expected in store-down tests; commands report it
  await redis.connect();
  return redis;
}

/** Records the request before answering, so a client that saw the answer also sees the count. */
async function serve(req: IncomingMessage, res: ServerResponse, redis: Redis, token: string, requests: BridgeRequest[]): Promise<void> {
  const body = await readBody(req);
  const url = new URL(req.url ?? '/', 'http://bridge');
  const encoding = header(req, 'upstash-encoding');
  const commands = commandNames(body, url.pathname);
  const reply = isAuthorised(req, url, token) ? await route(url.pathname, body, redis, encoding === 'base64') : { status: 401, body: { error: 'Unauthorized' } };
  requests.push({ path: url.pathname, status: reply.status, commands, encoding });
  res.writeHead(reply.status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(reply.body));
}

async function route(path: string, body: string, redis: Redis, base64: boolean): Promise<Reply> {
  if (path !== '/' && path !== '/pipeline' && path !== '/multi-exec') {
    return { status: 404, body: { error: `ERR the bridge serves POST /, /pipeline and /multi-exec, not ${path}` } };
  }
  try {
    const parsed = parseBody(body, path === '/');
    if (path === '/') return await single(redis, parsed[0], base64);
    if (path === '/pipeline') return await pipeline(redis, parsed, base64);
    return await multiExec(redis, parsed, base64);
  } catch (error) {
    if (error instanceof BadRequest || isErrorReply(error)) return { status: 400, body: { error: error.message } };
    return { status: 503, body: { error: `bridge cannot reach redis-server: ${error instanceof Error ? error.message : String(error)}` } };
  }
}

async function single(redis: Redis, command: Command, base64: boolean): Promise<Reply> {
  const [name, ...args] = command;
  return { status: 200, body: { result: encodeReply(await redis.callBuffer(String(name), ...args), base64) } };
}

/** Not atomic, like Upstash's: commands run in order on one connection; each answers on its own. */
async function pipeline(redis: Redis, commands: Command[], base64: boolean): Promise<Reply> {
  const answers = await Promise.all(commands.map(([name, ...args]) => redis.callBuffer(String(name), ...args).then(
    (result) => ({ result: encodeReply(result, base64) }),
    (error: unknown) => { if (isErrorReply(error)) return { error: error.message }; throw error; },
  )));
  return { status: 200, body: answers };
}

/** MULTI/EXEC: a command that fails inside still lets the others run; a discarded transaction is one error. */
async function multiExec(redis: Redis, commands: Command[], base64: boolean): Promise<Reply> {
  const transaction = redis.multi();
  for (const [name, ...args] of commands) transaction.callBuffer(String(name), ...args);
  const results = (await transaction.exec()) ?? [];
  return { status: 200, body: results.map(([error, result]) => (error ? { error: error instanceof Error ? error.message : String(error) } : { result: encodeReply(result, base64) })) };
}

/** An error reply from redis-server (as opposed to a lost connection); ioredis types the class as `any`. */
function isErrorReply(error: unknown): error is Error {
  return error instanceof (ReplyError as typeof Error);
}

/**
 * What Upstash answers with `Upstash-Encoding: base64`: every string base64-encoded, at any
 * depth, except a top-level "OK" (@upstash/redis decodes exactly that way: a bare "OK" passes
 * through, every other string is base64-decoded); integers and nulls as they are. Without the
 * header, strings are UTF-8 text (invalid bytes become U+FFFD, as on Upstash).
 */
export function encodeReply(reply: unknown, base64: boolean, topLevel = true): unknown {
  if (reply === null || reply === undefined) return null;
  if (Array.isArray(reply)) return reply.map((item) => encodeReply(item, base64, false));
  if (typeof reply === 'number') return reply;
  if (reply instanceof Error) return reply.message;
  const bytes = Buffer.isBuffer(reply) ? reply : Buffer.from(String(reply), 'utf8');
  if (!base64) return bytes.toString('utf8');
  return topLevel && bytes.equals(OK) ? 'OK' : bytes.toString('base64');
}

const OK = Buffer.from('OK');

class BadRequest extends Error {}

/** `POST /` carries one command; the other endpoints an array of commands. Arguments become bytes. */
function parseBody(body: string, one: boolean): Command[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    throw new BadRequest('ERR the request body is not JSON: send a JSON array such as ["SET","key","value"]');
  }
  const commands = one ? [parsed] : parsed;
  if (!Array.isArray(commands) || commands.length === 0) throw new BadRequest('ERR expected a JSON array of commands');
  return commands.map(toCommand);
}

function toCommand(command: unknown): Command {
  if (!Array.isArray(command) || command.length === 0) throw new BadRequest('ERR a command is a non-empty JSON array: ["NAME", "arg", ...]');
  return command.map((arg) => {
    if (typeof arg === 'string') return Buffer.from(arg, 'utf8');
    if (typeof arg === 'number' || typeof arg === 'boolean') return String(arg);
    throw new BadRequest(`ERR command arguments must be strings or numbers, got ${JSON.stringify(arg)}`);
  });
}

function commandNames(body: string, path: string): string[] {
  try {
    const parsed: unknown = JSON.parse(body);
    const commands = path === '/' ? [parsed] : parsed;
    return Array.isArray(commands) ? commands.map((c) => (Array.isArray(c) ? String(c[0]).toUpperCase() : '?')) : [];
  } catch {
    return [];
  }
}

function isAuthorised(req: IncomingMessage, url: URL, token: string): boolean {
  return header(req, 'authorization') === `Bearer ${token}` || url.searchParams.get('_token') === token;
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

