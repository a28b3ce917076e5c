/**
 * The exec RPC: `POST /rpc` with a signed JSON body `{"method", "params", "tenant", "nonce"}`,
 * answered by `{"result"}` or `{"error": {"code", "message"}}`. Method names are the
 * ExecutionEnvironment port's; file contents travel as base64 (`content_base64`). The
 * signature covers the whole body, so the tenant the gateway acts for and the request's nonce
 * are signed: the exec-server serves only its own tenants and runs each nonce once. Web
 * Standard code: the client runs on Workers, the server on Node, and both read this one
 * description.
 */
import { webBase64, type Base64Codec } from '../crypto/base64.ts';
import type { ExecErrorCode, ExecOptions, ExecutionEnvironment, GrepOptions } from './environment.ts';

export const RPC_PATH = '/rpc';

export const RPC_METHODS = [
  'readFile', 'writeFile', 'deleteFile', 'moveFile', 'fileExists', 'stat',
  'listDirectory', 'execCommand', 'grep', 'glob', 'workingDirectory', 'platform',
] as const;

export type RpcMethod = (typeof RPC_METHODS)[number];

export const EXEC_ERROR_CODES = [
  'not_found', 'is_directory', 'not_directory', 'invalid_path', 'outside_root', 'invalid_request', 'io_error', 'unavailable',
] as const satisfies readonly ExecErrorCode[];

// Fails to compile when environment.ts gains a code this list lacks.
const everyCodeListed: [Exclude<ExecErrorCode, (typeof EXEC_ERROR_CODES)[number]>] extends [never] ? true : false = true;
void everyCodeListed;

export interface RpcRequestBody {
  method: RpcMethod;
  params: Record<string, unknown>;
  /** The tenant whose manifest named this exec-server (the gateway sets it, never the tenant). */
  tenant: string;
  /** Random, at least 128 bits, fresh for every request: a replay carries a nonce already seen. */
  nonce: string;
}

/** Who a request is for and which one it is; checked before its method is even looked at. */
export interface RpcRequestIdentity {
  tenant: string;
  nonce: string;
}

/** The manifest schema's tenant id: lower-case letters, digits, - and _. */
export const TENANT_ID_PATTERN = /^[a-z0-9][a-z0-9_-]{0,62}$/;

/** 32 to 128 URL-safe characters: 128 random bits as hex is the shortest accepted. */
const NONCE_PATTERN = /^[A-Za-z0-9_-]{32,128}$/;

/** Refusal codes of the exec-server that the client explains (HTTP 401/403/503 bodies). */
export const REFUSAL_CODES = {
  badSignature: 'unauthorized',
  replayed: 'replayed_request',
  signedBeforeStart: 'signed_before_start',
  signedAhead: 'signed_ahead_of_server',
  tenantNotServed: 'tenant_not_served',
  tooManyRequests: 'too_many_requests',
  /** The request bodies the server holds at once are at their limit (503): nothing was read or run. */
  serverBusy: 'server_busy',
} as const;

/** 128 random bits as 32 hex characters (Web Crypto: runs on Workers too). */
export function newNonce(): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (byte) => byte.toString(16).padStart(2, '0')).join('');
}

export type RpcResponseBody = { result: unknown } | { error: { code: string; message: string } };

/**
 * What the exec-server adds to a request's own params, from outside them: the signal it aborts
 * when the client goes away (a command's process group, a search, are then stopped), and for a
 * command the tenant its signed request named (commands are shared between tenants).
 */
export interface RpcCallControl {
  signal?: AbortSignal;
  tenant?: string;
}

/** A request whose method and params were checked: run it against an environment. */
export type RpcCall = (environment: ExecutionEnvironment, control?: RpcCallControl) => Promise<unknown>;

/** The request is malformed (HTTP 400): wrong shape, unknown method, missing or mistyped params. */
export class RpcRequestError extends Error {
  override readonly name = 'RpcRequestError';
}

export function isExecErrorCode(code: unknown): code is ExecErrorCode {
  return (EXEC_ERROR_CODES as readonly unknown[]).includes(code);
}

export function isRpcMethod(method: unknown): method is RpcMethod {
  return (RPC_METHODS as readonly unknown[]).includes(method);
}

/** The tenant and nonce of a parsed body; throws RpcRequestError when either is missing or malformed. */
export function parseRpcIdentity(body: unknown): RpcRequestIdentity {
  if (!isObject(body)) throw new RpcRequestError('the body must be a JSON object {"method", "params", "tenant", "nonce"}');
  const { tenant, nonce } = body;
  if (typeof tenant !== 'string' || !TENANT_ID_PATTERN.test(tenant)) {
    throw new RpcRequestError(`tenant must be a tenant id (lower-case letters, digits, - and _), got ${describe(tenant)}: update the gateway, whose client sends it`);
  }
  if (typeof nonce !== 'string' || !NONCE_PATTERN.test(nonce)) {
    throw new RpcRequestError(`nonce must be 32 to 128 characters of A-Z, a-z, 0-9, - and _ (128 random bits or more), got ${describe(nonce)}: update the gateway, whose client sends it`);
  }
  return { tenant, nonce };
}

/**
 * Checks a parsed body's method and params and binds them; throws RpcRequestError with a message
 * that says what to fix. `codec` carries file contents (the exec-server passes Node's native one).
 */
export function parseRpcRequest(body: unknown, codec: Base64Codec = webBase64): { method: RpcMethod; call: RpcCall } {
  if (!isObject(body)) throw new RpcRequestError('the body must be a JSON object {"method", "params", "tenant", "nonce"}');
  const { method, params = {} } = body;
  if (!isRpcMethod(method)) throw new RpcRequestError(`unknown method ${JSON.stringify(method)}: use one of ${RPC_METHODS.join(', ')}`);
  if (!isObject(params)) throw new RpcRequestError(`params of ${method} must be a JSON object`);
  return { method, call: BINDERS[method](params, method, codec) };
}

type Params = Record<string, unknown>;

const BINDERS: Record<RpcMethod, (params: Params, method: string, codec: Base64Codec) => RpcCall> = {
  readFile: (p, m, codec) => {
    const path = text(p, 'path', m);
    return async (env) => ({ content_base64: codec.encode(await env.readFile(path)) });
  },
  writeFile: (p, m, codec) => {
    const path = text(p, 'path', m);
    const content = base64(p, 'content_base64', m, codec);
    return async (env) => nothing(await env.writeFile(path, content));
  },
  deleteFile: (p, m) => {
    const path = text(p, 'path', m);
    return async (env) => nothing(await env.deleteFile(path));
  },
  moveFile: (p, m) => {
    const from = text(p, 'from', m);
    const to = text(p, 'to', m);
    return async (env) => nothing(await env.moveFile(from, to));
  },
  fileExists: (p, m) => {
    const path = text(p, 'path', m);
    return (env) => env.fileExists(path);
  },
  stat: (p, m) => {
    const path = text(p, 'path', m);
    return (env) => env.stat(path);
  },
  listDirectory: (p, m) => {
    const path = text(p, 'path', m);
    const depth = number(p, 'depth', m);
    return (env) => env.listDirectory(path, depth);
  },
  execCommand: (p, m) => {
    const command = text(p, 'command', m);
    const options = execOptions(p.options, m);
    return (env, control = {}) => env.execCommand(command, { ...options, ...control });
  },
  grep: (p, m) => {
    const pattern = text(p, 'pattern', m);
    const path = text(p, 'path', m);
    const options = grepOptions(p.options, m);
    return (env, { signal } = {}) => env.grep(pattern, path, { ...options, signal });
  },
  glob: (p, m) => {
    const pattern = text(p, 'pattern', m);
    const path = text(p, 'path', m);
    return (env, { signal } = {}) => env.glob(pattern, path, { signal });
  },
  workingDirectory: () => (env) => env.workingDirectory(),
  platform: () => (env) => env.platform(),
};

/** What a well-formed result of each method looks like; the client refuses anything else. */
export const RESULT_SHAPES: Record<RpcMethod, (value: unknown) => boolean> = {
  readFile: (v) => isObject(v) && typeof v.content_base64 === 'string',
  writeFile: (v) => v === null,
  deleteFile: (v) => v === null,
  moveFile: (v) => v === null,
  fileExists: (v) => typeof v === 'boolean',
  stat: (v) => v === null || (isObject(v) && typeof v.type === 'string' && typeof v.size === 'number'),
  listDirectory: Array.isArray,
  execCommand: (v) => isObject(v) && typeof v.stdout === 'string' && typeof v.stderr === 'string' && typeof v.timed_out === 'boolean',
  grep: Array.isArray,
  glob: Array.isArray,
  workingDirectory: (v) => typeof v === 'string',
  platform: (v) => typeof v === 'string',
};

function execOptions(value: unknown, method: string): ExecOptions {
  const options = optionalObject(value, 'options', method);
  const result: ExecOptions = {};
  if (options.timeout_ms !== undefined) result.timeout_ms = number(options, 'timeout_ms', method);
  if (options.cwd !== undefined) result.cwd = text(options, 'cwd', method);
  if (options.env !== undefined) result.env = stringRecord(options.env, 'options.env', method);
  if (options.read_only !== undefined) result.read_only = boolean(options, 'read_only', method);
  if (options.network !== undefined) result.network = boolean(options, 'network', method);
  return result;
}

function grepOptions(value: unknown, method: string): GrepOptions {
  const options = optionalObject(value, 'options', method);
  const result: GrepOptions = {};
  if (options.glob_filter !== undefined) result.glob_filter = text(options, 'glob_filter', method);
  if (options.case_insensitive !== undefined) result.case_insensitive = boolean(options, 'case_insensitive', method);
  if (options.max_results !== undefined) result.max_results = number(options, 'max_results', method);
  return result;
}

function text(params: Params, name: string, method: string): string {
  const value = params[name];
  if (typeof value !== 'string') throw mistyped(method, name, 'a string', value);
  return value;
}

function number(params: Params, name: string, method: string): number {
  const value = params[name];
  if (typeof value !== 'number' || !Number.isFinite(value)) throw mistyped(method, name, 'a number', value);
  return value;
}

function boolean(params: Params, name: string, method: string): boolean {
  const value = params[name];
  if (typeof value !== 'boolean') throw mistyped(method, name, 'true or false', value);
  return value;
}

function base64(params: Params, name: string, method: string, codec: Base64Codec): Uint8Array {
  try {
    return codec.decode(text(params, name, method));
  } catch (error) {
    if (error instanceof RpcRequestError) throw error;
    throw new RpcRequestError(`${method}: ${name} is ${(error as Error).message}`);
  }
}

function optionalObject(value: unknown, name: string, method: string): Params {
  if (value === undefined || value === null) return {};
  if (!isObject(value)) throw mistyped(method, name, 'an object', value);
  return value;
}

function stringRecord(value: unknown, name: string, method: string): Record<string, string> {
  if (!isObject(value) || !Object.values(value).every((item) => typeof item === 'string')) {
    throw mistyped(method, name, 'an object of string values', value);
  }
  return value as Record<string, string>;
}

function mistyped(method: string, name: string, expected: string, value: unknown): RpcRequestError {
  return new RpcRequestError(`${method}: ${name} must be ${expected} (got ${describe(value)})`);
}

function describe(value: unknown): string {
  return value === undefined ? 'missing' : `${JSON.stringify(value)?.slice(0, 40) ?? typeof value}`;
}

function nothing(_: void): null {
  return null;
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
