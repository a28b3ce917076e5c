import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SIGNATURE_HEADER, TIMESTAMP_HEADER, verifySignedBody } from '../crypto/signed-request.ts';
import type { CommandSandbox } from './command-sandbox.ts';
import { ExecEnvironmentError, type ExecutionEnvironment } from './environment.ts';
import { LocalExecutionEnvironment } from './local.ts';
import { parseRpcIdentity, parseRpcRequest, REFUSAL_CODES, RPC_PATH, RpcRequestError, type RpcRequestIdentity, type RpcResponseBody } from './rpc-protocol.ts';
import { probeCommandSandbox } from './sandbox-probe.ts';
import { RequestAdmission, type Refusal } from './server-admission.ts';

/** File writes travel base64-encoded, so 64 MiB of body carries files up to about 48 MiB. */
export const DEFAULT_MAX_BODY_BYTES = 64 * 1024 * 1024;

/** The one path answered without a signature. */
export const HEALTH_PATH = '/healthz';

/** How much of an oversized body is read and thrown away so the 413 reaches the client. */
const MAX_DISCARDED_BYTES = 64 * 1024 * 1024;

export interface ExecServerOptions {
  /** The folder the environment is confined to. */
  root: string;
  /** Shared with the gateway; every request must be signed with it. */
  secret: string;
  /** The tenants this server works for; a request signed for any other tenant is refused (403). */
  tenants: string[];
  /** Default 8788; 0 picks a free port. */
  port?: number;
  /** Default 127.0.0.1. Anything wider exposes a shell to the network (plain HTTP): put TLS in front. */
  host?: string;
  maxBodyBytes?: number;
  /** One call per request/refusal, one JSON line each in the CLI. Params are never logged (file contents, commands). */
  log?: (event: string, fields: Record<string, unknown>) => void;
  /** The environment to serve; default a LocalExecutionEnvironment on `root` with `sandbox`. */
  environment?: ExecutionEnvironment;
  /** Nonces remembered at once before new requests are refused; default DEFAULT_MAX_NONCES (server-admission.ts). */
  maxNonces?: number;
  /**
   * How commands run, and what GET /healthz reports; default probed at start (bubblewrap when it
   * works here, else commands refused). A sandbox the server probed itself is closed with it.
   */
  sandbox?: CommandSandbox;
}

export interface ExecServer {
  url: string;
  close(): Promise<void>;
}

interface ServerContext {
  secret: string;
  admission: RequestAdmission;
  sandbox: CommandSandbox;
  maxBodyBytes: number;
  environment: ExecutionEnvironment;
  log: (event: string, fields: Record<string, unknown>) => void;
}

/** Serves an ExecutionEnvironment over the signed RPC (Node only). */
export async function startExecServer(options: ExecServerOptions): Promise<ExecServer> {
  if (!options.secret) throw new Error('the exec-server needs a non-empty secret to verify request signatures');
  const sandbox = options.sandbox ?? (await probeCommandSandbox());
  const context: ServerContext = {
    secret: options.secret,
    admission: new RequestAdmission(options.tenants, options.maxNonces),
    sandbox,
    maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
    environment: options.environment ?? new LocalExecutionEnvironment(options.root, { sandbox }),
    log: options.log ?? (() => {}),
  };
  const server = createServer((request, response) => {
    handleRequest(request, response, context).catch((error: unknown) => {
      context.log('exec.rpc.failed', { message: (error as Error).message });
      if (!response.headersSent) send(response, 500, { error: { code: 'io_error', message: 'the exec-server failed while answering; see its log' } });
      else response.destroy();
    });
  });
  const host = options.host ?? '127.0.0.1';
  const closeSandbox = options.sandbox ? async () => {} : () => sandbox.close();
  try {
    await listen(server, options.port ?? 8788, host);
  } catch (error) {
    await closeSandbox();
    throw error;
  }
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    close: async () => {
      await closeServer(server);
      await closeSandbox();
    },
  };
}

async function handleRequest(request: IncomingMessage, response: ServerResponse, context: ServerContext): Promise<void> {
  const started = performance.now();
  const path = new URL(request.url ?? '/', 'http://exec-server').pathname;
  if (path === HEALTH_PATH) return answerHealth(request, response, context);
  if (path !== RPC_PATH) return refuse(response, context, { status: 404, code: 'not_found', message: `nothing at ${path}: the exec-server answers POST ${RPC_PATH} and GET ${HEALTH_PATH} only` });
  if (request.method !== 'POST') return refuse(response, context, { status: 405, code: 'method_not_allowed', message: `use POST ${RPC_PATH}` });
  const body = await readBody(request, context.maxBodyBytes);
  if (body === 'too_large') {
    const message = `the request body is larger than the exec-server's limit of ${context.maxBodyBytes} bytes: send smaller files, or start the server with a higher maxBodyBytes`;
    return refuse(response, context, { status: 413, code: 'payload_too_large', message });
  }
  // The signature covers the raw bytes and is checked before anything is parsed or run. One
  // reading of the clock serves every check: a request the signature check still accepts must
  // find its nonce still remembered (a second reading a second later could have swept it).
  const nowSeconds = Math.floor(Date.now() / 1000);
  const timestamp = header(request, TIMESTAMP_HEADER);
  const check = await verifySignedBody(context.secret, body, timestamp, header(request, SIGNATURE_HEADER), { nowSeconds });
  if (!check.ok) {
    const message = `request signature rejected (${check.reason}): sign requests with the exec-server's TOOLGATE_EXEC_SECRET and keep clocks within 300 s`;
    return refuse(response, context, { status: 401, code: REFUSAL_CODES.badSignature, message });
  }
  // A valid signature's timestamp is digits (verifySignedBody checked it).
  const signedAt = Number(timestamp);
  const untimely = context.admission.checkTiming(signedAt, nowSeconds);
  if (untimely) return refuse(response, context, untimely);
  const parsed = parseBody(body);
  if ('status' in parsed) return refuse(response, context, parsed);
  const refused = context.admission.admit(parsed, signedAt, nowSeconds);
  if (refused) return refuse(response, context, refused, parsed.tenant);
  const answer = await runCall(parsed.call, context.environment);
  send(response, 200, answer);
  const outcome = 'error' in answer ? answer.error.code : 'ok';
  context.log('exec.rpc.completed', { tenant: parsed.tenant, method: parsed.method, outcome, duration_ms: Math.round(performance.now() - started) });
}

type ParsedRequest = RpcRequestIdentity & ReturnType<typeof parseRpcRequest>;

/** The request a signed body holds, or why it is malformed (400). */
function parseBody(body: Uint8Array): ParsedRequest | Refusal {
  try {
    const json: unknown = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(body));
    return { ...parseRpcIdentity(json), ...parseRpcRequest(json) };
  } catch (error) {
    const message = error instanceof RpcRequestError ? error.message : `the body is not UTF-8 JSON: ${(error as Error).message}`;
    return { status: 400, code: 'invalid_request', message };
  }
}

/** Environment errors are answers (HTTP 200 with `error`), so the client can rethrow them with their code. */
async function runCall(call: ReturnType<typeof parseRpcRequest>['call'], environment: ExecutionEnvironment): Promise<RpcResponseBody> {
  try {
    return { result: await call(environment) };
  } catch (error) {
    if (error instanceof ExecEnvironmentError) return { error: { code: error.code, message: error.message } };
    throw error;
  }
}

/** Unsigned on purpose (a supervisor or load balancer asks it): how commands run, nothing secret. */
function answerHealth(request: IncomingMessage, response: ServerResponse, context: ServerContext): void {
  if (request.method !== 'GET' && request.method !== 'HEAD') return refuse(response, context, { status: 405, code: 'method_not_allowed', message: `use GET ${HEALTH_PATH}` });
  send(response, 200, { status: 'ok', ...context.sandbox.report() });
}

function refuse(response: ServerResponse, context: ServerContext, { status, code, message }: Refusal, tenant?: string): void {
  context.log('exec.rpc.refused', { status, code, ...(tenant === undefined ? {} : { tenant }) });
  send(response, status, { error: { code, message } });
}

function send(response: ServerResponse, status: number, body: RpcResponseBody | Record<string, unknown>): void {
  const text = JSON.stringify(body);
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  response.end(text);
}

/**
 * The raw body, or 'too_large'. An oversized body is still read to its end (and thrown away)
 * (up to MAX_DISCARDED_BYTES more) so the client gets the 413 instead of a reset connection;
 * past that the connection is cut, so nobody can keep the server reading forever.
 */
function readBody(request: IncomingMessage, maxBytes: number): Promise<Uint8Array | 'too_large'> {
  const cutoff = maxBytes + MAX_DISCARDED_BYTES;
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= maxBytes) chunks.push(chunk);
      else if (size > cutoff) request.destroy();
    });
    request.once('end', () => resolve(size > maxBytes ? 'too_large' : Buffer.concat(chunks)));
    request.once('close', () => resolve('too_large'));
    request.once('error', reject);
  });
}

function header(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
