import { signBody } from '../../crypto/signed-request.ts';
import { neverSent } from '../../egress/never-sent.ts';
import { ToolError } from '../../registry/errors.ts';
import { decodeBase64, encodeBase64 } from '../../crypto/base64.ts';
import {
  ExecEnvironmentError,
  type Cancellable,
  type DirectoryEntry,
  type ExecOptions,
  type ExecResult,
  type ExecutionEnvironment,
  type FileStat,
  type GlobMatch,
  type GrepMatch,
  type GrepOptions,
} from '../environment.ts';
import { DEFAULT_EXEC_TIMEOUT_MS, KILL_GRACE_MS, MAX_EXEC_TIMEOUT_MS } from '../limits.ts';
import { isExecErrorCode, isObject, newNonce, REFUSAL_CODES, RESULT_SHAPES, RPC_PATH, TENANT_ID_PATTERN, type RpcMethod, type RpcRequestBody } from '../rpc-protocol.ts';

export interface RemoteExecutionEnvironmentOptions {
  /** The exec-server's base URL, e.g. http://127.0.0.1:8788 (a URL ending in /rpc is used as is). */
  url: string;
  /** The exec-server's TOOLGATE_EXEC_SECRET. */
  secret: string;
  /** The tenant this environment works for (the manifest's tenant); signed into every request. */
  tenant: string;
  /** Per-call transport timeout; execCommand waits longer (its own timeout plus the kill grace). Default 30 s. */
  timeoutMs?: number;
  /** Every command asks for network access (the manifest's execution_environment.network); the exec-server's operator must allow it. */
  network?: boolean;
  fetch?: typeof fetch;
  /** The W3C traceparent of the call this environment works for (see environmentForCall): sent with every request. */
  traceparent?: string;
}

/** Beyond a command's own timeout and kill grace: time for the server to answer and the bytes to travel. */
const EXEC_TRANSPORT_MARGIN_MS = 5_000;

/**
 * The ExecutionEnvironment of an exec-server, over the signed RPC (Web Standard APIs only: runs
 * on Workers). Environment errors come back as ExecEnvironmentError with the server's code; a
 * server that cannot be reached or does not speak the RPC is a ToolError('unavailable').
 */
export class RemoteExecutionEnvironment implements ExecutionEnvironment {
  readonly #baseUrl: string;
  readonly #endpoint: string;
  readonly #secret: string;
  readonly #tenant: string;
  readonly #timeoutMs: number;
  readonly #network: boolean;
  readonly #fetch: typeof fetch;
  readonly #options: RemoteExecutionEnvironmentOptions;

  constructor(options: RemoteExecutionEnvironmentOptions) {
    if (!/^https?:\/\//i.test(options.url ?? '') || !URL.canParse(options.url)) {
      throw new TypeError(`exec-server url ${JSON.stringify(options.url)} is not an http(s) URL: use e.g. http://127.0.0.1:8788`);
    }
    if (!options.secret) throw new TypeError('RemoteExecutionEnvironment needs the exec-server secret (TOOLGATE_EXEC_SECRET) to sign requests');
    if (typeof options.tenant !== 'string' || !TENANT_ID_PATTERN.test(options.tenant)) {
      throw new TypeError(`RemoteExecutionEnvironment needs the tenant it works for (a tenant id), got ${JSON.stringify(options.tenant)}`);
    }
    this.#baseUrl = options.url.replace(/\/+$/, '');
    this.#endpoint = this.#baseUrl.endsWith(RPC_PATH) ? this.#baseUrl : `${this.#baseUrl}${RPC_PATH}`;
    this.#secret = options.secret;
    this.#tenant = options.tenant;
    this.#timeoutMs = options.timeoutMs ?? 30_000;
    this.#network = options.network === true;
    this.#fetch = options.fetch ?? ((input, init) => fetch(input, init));
    this.#options = options;
  }

  /** The same exec-server for one traced call: its requests carry the call's traceparent (and nothing else of the gateway's tracing). */
  withTraceparent(traceparent: string): RemoteExecutionEnvironment {
    return new RemoteExecutionEnvironment({ ...this.#options, traceparent });
  }

  async readFile(path: string): Promise<Uint8Array> {
    const result = (await this.#call('readFile', { path })) as { content_base64: string };
    try {
      return decodeBase64(result.content_base64);
    } catch (error) {
      throw this.#unavailable(`answered readFile with bad base64 (${(error as Error).message})`);
    }
  }

  async writeFile(path: string, content: Uint8Array): Promise<void> {
    await this.#call('writeFile', { path, content_base64: encodeBase64(content) });
  }

  async deleteFile(path: string): Promise<void> {
    await this.#call('deleteFile', { path });
  }

  async moveFile(from: string, to: string): Promise<void> {
    await this.#call('moveFile', { from, to });
  }

  async fileExists(path: string): Promise<boolean> {
    return (await this.#call('fileExists', { path })) as boolean;
  }

  async stat(path: string): Promise<FileStat | null> {
    return (await this.#call('stat', { path })) as FileStat | null;
  }

  async listDirectory(path: string, depth: number): Promise<DirectoryEntry[]> {
    return (await this.#call('listDirectory', { path, depth })) as DirectoryEntry[];
  }

  async execCommand(command: string, options: ExecOptions = {}): Promise<ExecResult> {
    // The signal stays here (it drops the request); the exec-server sets the tenant from the signed body.
    const { signal, tenant: _tenant, ...rest } = options;
    const commandTimeout = rest.timeout_ms ?? DEFAULT_EXEC_TIMEOUT_MS;
    // A nonsense timeout is the server's to refuse (invalid_request); the transport just needs a number.
    const waitFor = Number.isFinite(commandTimeout) ? Math.min(commandTimeout, MAX_EXEC_TIMEOUT_MS) : 0;
    const transportTimeout = Math.max(this.#timeoutMs, waitFor + KILL_GRACE_MS + EXEC_TRANSPORT_MARGIN_MS);
    const sent = this.#network ? { ...rest, network: true } : rest;
    return (await this.#call('execCommand', { command, options: sent }, transportTimeout, signal)) as ExecResult;
  }

  async grep(pattern: string, path: string, options: GrepOptions = {}): Promise<GrepMatch[]> {
    const { signal, ...sent } = options;
    return (await this.#call('grep', { pattern, path, options: sent }, this.#timeoutMs, signal)) as GrepMatch[];
  }

  async glob(pattern: string, path: string, options: Cancellable = {}): Promise<GlobMatch[]> {
    return (await this.#call('glob', { pattern, path }, this.#timeoutMs, options.signal)) as GlobMatch[];
  }

  async workingDirectory(): Promise<string> {
    return (await this.#call('workingDirectory', {})) as string;
  }

  async platform(): Promise<string> {
    return (await this.#call('platform', {})) as string;
  }

  /**
   * One signed POST with a fresh nonce; the result has the method's shape, or this throws. Never
   * retried: a request that may have reached the server must not run twice. When `cancel` fires
   * (or the timeout passes) the request is dropped, connection and all: the exec-server takes
   * its client's leaving as the order to stop the work.
   */
  async #call(method: RpcMethod, params: Record<string, unknown>, timeoutMs = this.#timeoutMs, cancel?: AbortSignal): Promise<unknown> {
    if (cancel?.aborted) throw this.#unavailable('the call was cancelled before it was sent (nothing ran)');
    const request: RpcRequestBody = { method, params, tenant: this.#tenant, nonce: newNonce() };
    const body = JSON.stringify(request);
    const traced: Record<string, string> = this.#options.traceparent ? { traceparent: this.#options.traceparent } : {};
    const headers: Record<string, string> = { 'content-type': 'application/json', ...traced, ...(await signBody(this.#secret, body)) };
    const timeout = AbortSignal.timeout(timeoutMs);
    let status: number;
    let text: string;
    try {
      const response = await this.#fetch(this.#endpoint, { method: 'POST', headers, body, signal: cancel ? AbortSignal.any([timeout, cancel]) : timeout });
      status = response.status;
      text = await response.text();
    } catch (error) {
      const cause = cancel?.aborted ? 'the gateway stopped waiting for it, and the exec-server was told to stop it' : transportFailure(error, timeoutMs);
      throw neverSent(error) ? this.#unavailable(cause) : this.#lostAnswer(method, cause);
    }
    return this.#interpret(method, status, text);
  }

  #interpret(method: RpcMethod, status: number, text: string): unknown {
    const body = parseJson(text);
    const error = isObject(body) && isObject(body.error) ? body.error : undefined;
    const refusal = this.#refusal(status, error?.code);
    if (refusal !== undefined) throw this.#unavailable(refusal);
    if (status === 413) {
      const detail = typeof error?.message === 'string' ? error.message : 'the request body is too large';
      throw new ExecEnvironmentError('invalid_request', `${method}: ${detail}`);
    }
    // Environment errors are 200s; a 400 is a request this client built wrong (say, a newer
    // method than the server knows). Any other status with an error body is not the exec-server
    // talking about the environment (a gateway's 404 must not read as "file not found").
    const fromServer = (status === 200 && isExecErrorCode(error?.code)) || (status === 400 && error?.code === 'invalid_request');
    if (error && fromServer && isExecErrorCode(error.code) && typeof error.message === 'string') {
      throw new ExecEnvironmentError(error.code, error.message);
    }
    if (typeof error?.message === 'string') {
      throw this.#notAnAnswer(method, status, `answered ${method} with HTTP ${status}: ${error.message}`);
    }
    if (status !== 200 || !isObject(body) || !('result' in body) || !RESULT_SHAPES[method](body.result)) {
      throw this.#notAnAnswer(method, status, `answered ${method} with HTTP ${status} and ${describeBody(text, body)}, not a toolgate exec RPC answer: check that the URL points at \`toolgate exec-server\``);
    }
    return body.result;
  }

  /**
   * An answer that is not the RPC's: a server error (5xx: the exec-server, or a proxy in front of
   * it, failed while the request may have been running) leaves a change's outcome unknown; any
   * other status means the request never reached the RPC.
   */
  #notAnAnswer(method: RpcMethod, status: number, cause: string): ToolError {
    return status >= 500 ? this.#lostAnswer(method, cause) : this.#unavailable(cause);
  }

  /**
   * The request may have reached the server, and no answer came back. A read can simply be asked
   * again (`unavailable`: the claim is released); a change may have happened (`indeterminate`:
   * stored, so a retry of the same call is told so instead of changing anything twice).
   */
  #lostAnswer(method: RpcMethod, cause: string): ToolError {
    if (!CHANGING_METHODS.has(method)) return this.#unavailable(cause);
    return new ToolError(
      'indeterminate',
      // Said to the model, whichever tool it holds: no RPC method or id field names.
      `The execution environment at ${this.#baseUrl} did not answer (${cause}) after the request reached it: it may have run. Check its effect (read the file, list the folder, look for the command's output) before doing it again as a new call.`,
      { environment: this.#baseUrl, method },
    );
  }

  /** What to fix when the exec-server refused the request itself (nothing ran). */
  #refusal(status: number, code: unknown): string | undefined {
    if (status === 403 && code === REFUSAL_CODES.tenantNotServed) {
      return `does not serve tenant "${this.#tenant}" (HTTP 403; nothing ran): start that exec-server with --tenant ${this.#tenant} (or TOOLGATE_EXEC_TENANTS), or point this tenant's manifest at its own exec-server`;
    }
    if (status === 503 && code === REFUSAL_CODES.tooManyRequests) return 'is refusing requests for now (HTTP 503, too many within the signature window; nothing ran): retry later';
    if (status === 503 && code === REFUSAL_CODES.serverBusy) return 'is busy (HTTP 503, it holds as many request bodies as it takes at once; nothing ran): retry shortly, or send fewer large files in parallel';
    if (status !== 401) return undefined;
    if (code === REFUSAL_CODES.replayed) {
      return 'refused the request as a replay of one it already received (HTTP 401; nothing ran again): something between the gateway and the exec-server resent it; check proxies on the way';
    }
    if (code === REFUSAL_CODES.signedAhead) {
      return 'refused a request timestamped ahead of its clock (HTTP 401; nothing ran): the gateway\'s clock is ahead of the exec-server\'s: sync both clocks (NTP)';
    }
    if (code === REFUSAL_CODES.signedBeforeStart) {
      return 'refused a request signed before it started (HTTP 401; nothing ran): retry the call; if this repeats, the gateway\'s clock is behind the exec-server\'s: sync both clocks (NTP)';
    }
    return 'refused the request signature (HTTP 401): set the same TOOLGATE_EXEC_SECRET here and on the exec-server, and check both clocks';
  }

  /** Nothing ran: the server is down, refused the request, or is not an exec-server. */
  #unavailable(cause: string): ToolError {
    return new ToolError('unavailable', `execution environment at ${this.#baseUrl} is unavailable: ${cause}`);
  }
}

/** The methods that change files or run commands: running them twice is not the same as once. */
const CHANGING_METHODS: ReadonlySet<RpcMethod> = new Set(['writeFile', 'deleteFile', 'moveFile', 'execCommand']);

function transportFailure(error: unknown, timeoutMs: number): string {
  const name = (error as Error | undefined)?.name;
  if (name === 'TimeoutError' || name === 'AbortError') return `no answer within ${timeoutMs} ms`;
  // Node's fetch says only "fetch failed"; the cause says why (connect ECONNREFUSED ...).
  const cause = (error as { cause?: unknown } | undefined)?.cause;
  if (cause instanceof Error && cause.message) return cause.message;
  return (error as Error | undefined)?.message ?? String(error);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function describeBody(text: string, parsed: unknown): string {
  if (text === '') return 'an empty body';
  if (parsed === undefined) return `a body that is not JSON (${JSON.stringify(text.slice(0, 60))})`;
  return 'JSON of an unexpected shape';
}

/**
 * The environment a coding tool uses for one call: with tracing on, an exec-server's requests
 * carry the call's traceparent; otherwise (or for any other environment) the one it was given.
 */
export function environmentForCall(env: ExecutionEnvironment, context: { traceparent?: string }): ExecutionEnvironment {
  return context.traceparent && env instanceof RemoteExecutionEnvironment ? env.withTraceparent(context.traceparent) : env;
}
