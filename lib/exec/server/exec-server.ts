import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isHostEntry } from '../../http/origin-policy.ts';
import { SIGNATURE_HEADER, TIMESTAMP_HEADER, verifySignedBody } from '../../crypto/signed-request.ts';
import type { CommandSandbox } from '../sandbox/command-sandbox.ts';
import { ExecEnvironmentError, type ExecutionEnvironment } from '../environment.ts';
import { FileOperationShares } from './file-operation-shares.ts';
import { LocalExecutionEnvironment } from '../local/local-environment.ts';
import { nodeBase64 } from './node-base64.ts';
import { isObject, parseRpcIdentity, parseRpcRequest, REFUSAL_CODES, RPC_PATH, RpcRequestError, type RpcCallControl, type RpcMethod, type RpcRequestIdentity, type RpcResponseBody } from '../rpc-protocol.ts';
import { probeCommandSandbox } from '../sandbox/probe.ts';
import { RequestAdmission, signatureRefusal, type Refusal } from './admission.ts';
import { BodyBudget, discardRest, readBody } from './body.ts';
import { hostsServed, originRefusal } from './origins.ts';

/** File writes travel base64-encoded, so 64 MiB of body carries files up to about 48 MiB. */
export const DEFAULT_MAX_BODY_BYTES = 64 * 1024 * 1024;

/** Request bodies held at once, all requests together, as a multiple of one request's limit. */
const DEFAULT_BODIES_AT_ONCE = 2;

/**
 * File operations (every method but execCommand, which CommandsAtOnce caps) worked on at once,
 * shared between the tenants like command slots (FileOperationShares). A readFile answer of
 * 32 MiB is held about four times over while it is encoded and sent.
 */
export const DEFAULT_FILE_OPERATIONS_AT_ONCE = 4;

/** How long a file operation waits for one of those slots before it is refused (the client waits 30 s). */
const DEFAULT_FILE_OPERATION_WAIT_MS = 10_000;

/** The one path answered without a signature. */
export const HEALTH_PATH = '/healthz';

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
  /**
   * More Host names (`name` or `name:port`) the server answers to besides the address it listens
   * on (see hostsServed): the name the gateway's URL uses, e.g. exec.internal. Others get 403.
   */
  allowedHosts?: string[];
  maxBodyBytes?: number;
  /** Body bytes all requests together may hold at once; beyond it a request is refused (503). Default 2 × maxBodyBytes. */
  maxBufferedBodyBytes?: number;
  /** File operations worked on at once, shared between the tenants; default DEFAULT_FILE_OPERATIONS_AT_ONCE. */
  maxFileOperations?: number;
  /** How long a file operation waits for its turn before it is refused (unavailable); default 10 s. */
  fileOperationWaitMs?: number;
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
  /** The default environment reads, searches and writes files with several hard links (--allow-hard-links; see local-file-kinds.ts). */
  allowHardLinks?: boolean;
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
  bodies: BodyBudget;
  fileOperations: FileOperationShares;
  fileOperationWaitMs: number;
  /** The Host values answered to; known once the server listens (port 0 picks one). */
  hostsServed: string[];
  environment: ExecutionEnvironment;
  log: (event: string, fields: Record<string, unknown>) => void;
}

/** Serves an ExecutionEnvironment over the signed RPC (Node only). */
export async function startExecServer(options: ExecServerOptions): Promise<ExecServer> {
  if (!options.secret) throw new Error('the exec-server needs a non-empty secret to verify request signatures');
  const extraHosts = checkedHosts(options.allowedHosts ?? []);
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const maxBuffered = options.maxBufferedBodyBytes ?? DEFAULT_BODIES_AT_ONCE * maxBodyBytes;
  if (!(maxBuffered >= maxBodyBytes)) throw new Error(`the body bytes held at once (${maxBuffered}) must be at least one request's limit (${maxBodyBytes})`);
  const admission = new RequestAdmission(options.tenants, options.maxNonces);
  const fileOperations = new FileOperationShares(options.maxFileOperations ?? DEFAULT_FILE_OPERATIONS_AT_ONCE, options.tenants);
  const sandbox = options.sandbox ?? (await probeCommandSandbox({ tenants: options.tenants }));
  const context: ServerContext = {
    secret: options.secret,
    admission,
    sandbox,
    maxBodyBytes,
    // Each tenant may hold its part of the budget, and at least one request's limit.
    bodies: new BodyBudget(maxBuffered, Math.max(maxBodyBytes, Math.floor(maxBuffered / Math.max(1, new Set(options.tenants).size)))),
    fileOperations,
    fileOperationWaitMs: options.fileOperationWaitMs ?? DEFAULT_FILE_OPERATION_WAIT_MS,
    hostsServed: [],
    environment: options.environment ?? new LocalExecutionEnvironment(options.root, { sandbox, allowHardLinks: options.allowHardLinks }),
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
  context.hostsServed = hostsServed(host, port, extraHosts);
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
  // What cannot be valid is refused before a byte of its body is held: a browser's request, a
  // Host this server does not answer to, missing, malformed or stale signature headers.
  const unread = originRefusal({ host: header(request, 'host'), origin: header(request, 'origin') }, context.hostsServed);
  if (unread) return refuseUnread(request, response, context, unread);
  const timestamp = header(request, TIMESTAMP_HEADER);
  const signature = header(request, SIGNATURE_HEADER);
  const headers = context.admission.checkHeaders(timestamp, signature, Math.floor(Date.now() / 1000));
  if ('status' in headers) return refuseUnread(request, response, context, headers);
  const reading = readBody(request, context.maxBodyBytes, context.bodies);
  try {
    const body = await reading.done;
    if ('refused' in body) return body.refused === 'gone' ? void response.destroy() : refuse(response, context, bodyRefusal(body.refused, context));
    // The signature covers the raw bytes and is checked before anything is parsed or run. One
    // reading of the clock serves every check: a request the signature check still accepts must
    // find its nonce still remembered (a second reading a second later could have swept it).
    const nowSeconds = Math.floor(Date.now() / 1000);
    const check = await verifySignedBody(context.secret, body.bytes, timestamp, signature, { nowSeconds });
    if (!check.ok) return refuse(response, context, signatureRefusal(check.reason));
    await answerSigned(body.bytes, headers.signedAt, nowSeconds, response, context, started);
  } finally {
    context.bodies.giveBack(reading.held());
  }
}

/** A correctly signed body: parsed, admitted (tenant, nonce), run, answered. */
async function answerSigned(body: Uint8Array, signedAt: number, nowSeconds: number, response: ServerResponse, context: ServerContext, started: number): Promise<void> {
  const untimely = context.admission.checkTiming(signedAt, nowSeconds);
  if (untimely) return refuse(response, context, untimely);
  const parsed = parseBody(body);
  if ('status' in parsed) return refuse(response, context, parsed);
  const refused = context.admission.admit(parsed, signedAt, nowSeconds);
  if (refused) return refuse(response, context, refused, parsed.tenant);
  const giveBack = context.bodies.claimFor(parsed.tenant, body.length);
  if (!giveBack) return refuse(response, context, tenantBodiesRefusal(parsed.tenant, context), parsed.tenant);
  try {
    const answer = await runAndAnswer(parsed, response, context);
    const outcome = 'error' in answer ? answer.error.code : 'ok';
    context.log('exec.rpc.completed', { tenant: parsed.tenant, method: parsed.method, outcome, duration_ms: Math.round(performance.now() - started) });
  } finally {
    giveBack();
  }
}

/** The tenant's requests already hold their share of the request-body bytes (BodyBudget). */
function tenantBodiesRefusal(tenant: string, context: ServerContext): Refusal {
  const { tenantShare, max } = context.bodies;
  const message = `tenant "${tenant}" already has ${tenantShare} bytes of request bodies at the exec-server, as many as one tenant's requests may hold at once (its tenants share ${max}): nothing was run; retry shortly, or send fewer large files in parallel`;
  return { status: 503, code: REFUSAL_CODES.serverBusy, message };
}

function bodyRefusal(refused: 'too_large' | 'no_room', context: ServerContext): Refusal {
  if (refused === 'no_room') {
    const message = `the exec-server already holds ${context.bodies.max} bytes of request bodies, as many as it takes at once: nothing was read or run; retry shortly`;
    return { status: 503, code: REFUSAL_CODES.serverBusy, message };
  }
  const message = `the request body is larger than the exec-server's limit of ${context.maxBodyBytes} bytes: send smaller files, or start the server with a higher --max-body-bytes`;
  return { status: 413, code: 'payload_too_large', message };
}

type ParsedRequest = RpcRequestIdentity & ReturnType<typeof parseRpcRequest>;

/** The request a signed body holds, or why it is malformed (400). */
function parseBody(body: Uint8Array): ParsedRequest | Refusal {
  try {
    const json: unknown = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(body));
    return { ...parseRpcIdentity(json), ...parseRpcRequest(json, nodeBase64) };
  } catch (error) {
    const message = error instanceof RpcRequestError ? error.message : `the body is not UTF-8 JSON: ${(error as Error).message}`;
    return { status: 400, code: 'invalid_request', message };
  }
}

/**
 * Runs the call and sends its answer (HTTP 200, environment errors included, so the client can
 * rethrow them with their code). A file operation holds one of the server's file operation
 * slots until its answer has been handed to the connection: a readFile answer is held in memory
 * until then. A command's cap is the sandbox's (CommandsAtOnce), which refuses rather than queue.
 * A client that goes away before its answer (the gateway stopped waiting) stops the work: the
 * command's process group or the search is killed, and its slot is free again.
 */
async function runAndAnswer(parsed: ParsedRequest, response: ServerResponse, context: ServerContext): Promise<RpcResponseBody> {
  const clientGone = whenClientGone(response);
  try {
    const release = parsed.method === 'execCommand' ? () => {} : await context.fileOperations.take(parsed.tenant, context.fileOperationWaitMs);
    if (!release) {
      const message = fileOperationsBusy(parsed, context);
      const busy: RpcResponseBody = { error: { code: 'unavailable', message } };
      send(response, 200, busy);
      return busy;
    }
    try {
      if (clientGone.signal.aborted) return CANCELLED;
      const answer = await runCall(parsed.call, context.environment, { signal: clientGone.signal, tenant: parsed.tenant });
      if (clientGone.signal.aborted) return CANCELLED;
      await sent(response, 200, answerText(parsed.method, answer));
      return answer;
    } finally {
      release();
    }
  } finally {
    clientGone.stopWatching();
  }
}

/** Why a file operation was not started: every slot its tenant may take was in use all the time it waited. */
function fileOperationsBusy(parsed: ParsedRequest, context: ServerContext): string {
  const { fileOperations, fileOperationWaitMs } = context;
  const shared = fileOperations.guaranteed < fileOperations.max ? `, shared between its tenants (each is guaranteed ${fileOperations.guaranteed}; tenant "${parsed.tenant}" was using what it may),` : '';
  return `the exec-server is busy: ${fileOperations.max} file operations were under way${shared} all the ${fileOperationWaitMs} ms this ${parsed.method} waited, so it was not started; retry it shortly`;
}

/** What a call whose client went away is logged as; nobody reads it. */
const CANCELLED: RpcResponseBody = { error: { code: 'cancelled', message: 'the client went away before the answer; the work was stopped' } };

/**
 * A signal aborted when the connection closes before the answer was sent: the gateway dropped
 * the request (its timeout, or the call was cancelled). `stopWatching` once the answer is out.
 */
function whenClientGone(response: ServerResponse): { signal: AbortSignal; stopWatching: () => void } {
  const controller = new AbortController();
  const onClose = () => {
    if (!response.writableFinished) controller.abort(new Error('the client went away'));
  };
  if (response.destroyed) onClose();
  else response.once('close', onClose);
  return { signal: controller.signal, stopWatching: () => response.off('close', onClose) };
}

async function runCall(call: ParsedRequest['call'], environment: ExecutionEnvironment, control: RpcCallControl): Promise<RpcResponseBody> {
  try {
    return { result: await call(environment, control) };
  } catch (error) {
    if (error instanceof ExecEnvironmentError) return { error: { code: error.code, message: error.message } };
    throw error;
  }
}

/**
 * A readFile answer is nearly all base64, which needs no escaping, so it is put together as is:
 * JSON.stringify would scan each of its characters on the event loop (32 MiB of file, 43 MiB of
 * base64: about 0.6 s here). Every other answer is small.
 */
function answerText(method: RpcMethod, answer: RpcResponseBody): string {
  if (method === 'readFile' && 'result' in answer && isObject(answer.result) && typeof answer.result.content_base64 === 'string') {
    return `{"result":{"content_base64":"${answer.result.content_base64}"}}`;
  }
  return JSON.stringify(answer);
}

/** Unsigned on purpose (a supervisor or load balancer asks it): how commands run, nothing secret. */
function answerHealth(request: IncomingMessage, response: ServerResponse, context: ServerContext): void {
  if (request.method !== 'GET' && request.method !== 'HEAD') return refuse(response, context, { status: 405, code: 'method_not_allowed', message: `use GET ${HEALTH_PATH}` });
  const { bodies, fileOperations } = context;
  const requests = { max_body_bytes: context.maxBodyBytes, body_bytes_at_once: bodies.max, body_bytes_held: bodies.held, file_operations_at_once: fileOperations.max };
  send(response, 200, { status: 'ok', ...context.sandbox.report(), requests });
}

/** A refusal decided before the body was read: the body is read on and thrown away first, so the answer reaches the client. */
async function refuseUnread(request: IncomingMessage, response: ServerResponse, context: ServerContext, refusal: Refusal): Promise<void> {
  await discardRest(request, context.maxBodyBytes);
  refuse(response, context, refusal);
}

function refuse(response: ServerResponse, context: ServerContext, { status, code, message }: Refusal, tenant?: string): void {
  context.log('exec.rpc.refused', { status, code, ...(tenant === undefined ? {} : { tenant }) });
  send(response, status, { error: { code, message } });
}

function send(response: ServerResponse, status: number, body: RpcResponseBody | Record<string, unknown>): void {
  void sent(response, status, JSON.stringify(body));
}

/**
 * Sends a JSON text; resolves once it is handed to the connection, or the connection is gone
 * (a response whose client already left emits neither event again, so it resolves at once).
 */
function sent(response: ServerResponse, status: number, text: string): Promise<void> {
  if (response.destroyed) return Promise.resolve();
  const done = new Promise<void>((resolve) => {
    response.once('finish', resolve);
    response.once('close', resolve);
  });
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  response.end(text);
  return done;
}

function header(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function checkedHosts(hosts: string[]): string[] {
  const bad = hosts.find((host) => !isHostEntry(host));
  if (bad !== undefined) throw new Error(`--allowed-host ${JSON.stringify(bad)} is not a host name or host:port (for IPv6 write [::1]:8788)`);
  return hosts;
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
