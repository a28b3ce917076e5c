import { signAwsRequest, type AwsCredentials } from './signing.ts';
import type { DynamoDbInput, DynamoDbOperation, DynamoDbOutput } from './types.ts';
import { answerError, CONTENT_TYPE, decodeAnswer, DynamoDbError, encodeRequest, TARGET_PREFIX } from './wire.ts';

export type DynamoDbCredentials = AwsCredentials;
export { DynamoDbError };

export interface DynamoDbClientOptions {
  region: string;
  /** Overrides the AWS endpoint, e.g. `http://127.0.0.1:4567` for dynalite. */
  endpoint?: string;
  /** Always explicit: there is no credential chain (dynamodb-config.ts reads AWS_ACCESS_KEY_ID, ...). */
  credentials: DynamoDbCredentials;
  /** Per attempt, until the whole answer has arrived. */
  requestTimeoutMs?: number;
  /** Attempts per request, first included. */
  maxAttempts?: number;
  /** Replaces global fetch (tests count requests with it; Workers may pass a binding's fetch). */
  fetch?: typeof fetch;
}

export interface DynamoDbClient {
  /**
   * Sends one operation and returns DynamoDB's answer. Throws DynamoDbError, named after
   * DynamoDB's error type (`ConditionalCheckFailedException`, ...), once the attempts are spent
   * or at once when sending again cannot help.
   */
  send<O extends DynamoDbOperation>(operation: O, input: DynamoDbInput<O>, options?: { abortSignal?: AbortSignal }): Promise<DynamoDbOutput<O>>;
}

/**
 * A store that does not answer must fail a dispatch within seconds, not hang it: DynamoDB
 * answers in milliseconds, so one retry with a short timeout is plenty.
 */
export const DYNAMODB_REQUEST_TIMEOUT_MS = 2_000;
export const DYNAMODB_MAX_ATTEMPTS = 2;
/** Full-jitter backoff before a retry: up to base × 2^(attempt-1) ms; throttling waits longer, as in the AWS SDKs. */
const RETRY_BASE_MS = 100;
const THROTTLED_RETRY_BASE_MS = 500;

/**
 * A DynamoDB client over fetch, signed with SigV4 (WebCrypto), so it runs unchanged in Node,
 * Lambda, Deno and workerd. Only errors that say "try again" are retried: throttling, 5xx, a
 * network failure or a timeout. A failed condition is an answer and is never sent again.
 */
export function createDynamoDbClient(options: DynamoDbClientOptions): DynamoDbClient {
  const url = endpointOf(options);
  const scope = { credentials: checkedCredentials(options.credentials), region: options.region, service: 'dynamodb', cache: new Map<string, ArrayBuffer>() };
  const timeoutMs = options.requestTimeoutMs ?? DYNAMODB_REQUEST_TIMEOUT_MS;
  const maxAttempts = Math.max(1, options.maxAttempts ?? DYNAMODB_MAX_ATTEMPTS);
  const fetcher = options.fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => fetch(input, init));

  async function attempt(operation: string, body: string, attempts: number, caller: AbortSignal | undefined): Promise<unknown> {
    const headers = await signAwsRequest({ url, method: 'POST', headers: { 'content-type': CONTENT_TYPE, 'x-amz-target': TARGET_PREFIX + operation }, body }, scope);
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = caller ? AbortSignal.any([caller, timeout]) : timeout;
    let answer: { status: number; headers: Headers; text: string };
    try {
      const response = await fetcher(url, { method: 'POST', headers, body, signal });
      answer = { status: response.status, headers: response.headers, text: await response.text() };
    } catch (error) {
      throw unanswered(operation, error, { attempts, timedOut: timeout.aborted && !caller?.aborted, timeoutMs, caller });
    }
    if (answer.status !== 200) throw answerError(operation, answer, attempts);
    try {
      return decodeAnswer(answer.text);
    } catch (error) {
      throw new DynamoDbError({ name: 'MalformedAnswer', message: `${operation}: DynamoDB's answer is not valid JSON: ${(error as Error).message}`, status: answer.status, attempts, retryable: false });
    }
  }

  return {
    async send(operation, input, sendOptions = {}) {
      const body = encodeRequest(input);
      const caller = sendOptions.abortSignal;
      for (let attempts = 1; ; attempts++) {
        try {
          return (await attempt(operation, body, attempts, caller)) as DynamoDbOutput<typeof operation>;
        } catch (error) {
          if (!(error instanceof DynamoDbError) || !error.retryable || attempts >= maxAttempts) throw error;
          await pause(backoffMs(error, attempts), caller);
          if (caller?.aborted) throw error;
        }
      }
    },
  };
}

/**
 * The error for a request that got no answer: the caller gave up, the attempt timed out, or the
 * network failed. It does not name the endpoint: a tool's `unavailable` result quotes it, and an
 * operator's private endpoint is none of a tenant's business.
 */
function unanswered(operation: string, error: unknown, at: { attempts: number; timedOut: boolean; timeoutMs: number; caller: AbortSignal | undefined }): DynamoDbError {
  const base = { status: 0, attempts: at.attempts, cause: error };
  if (at.caller?.aborted) {
    const reason = at.caller.reason instanceof Error ? at.caller.reason.message : String(at.caller.reason);
    return new DynamoDbError({ ...base, name: 'AbortError', message: `${operation} was given up before DynamoDB answered: ${reason}`, retryable: false });
  }
  if (at.timedOut) return new DynamoDbError({ ...base, name: 'TimeoutError', message: `DynamoDB did not answer ${operation} within ${at.timeoutMs} ms`, retryable: true });
  // Node's fetch says only "fetch failed"; its cause says why (ECONNREFUSED, ENOTFOUND, ...).
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  const why = cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error));
  return new DynamoDbError({ ...base, name: 'NetworkError', message: `could not reach DynamoDB for ${operation}: ${why}`, retryable: true });
}

function backoffMs(error: DynamoDbError, attempts: number): number {
  const base = error.status === 429 || (error.status === 400 && error.retryable) ? THROTTLED_RETRY_BASE_MS : RETRY_BASE_MS;
  return Math.random() * base * 2 ** (attempts - 1);
}

/** Waits `ms`, or less if the caller gives up meanwhile. */
function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    }, { once: true });
  });
}

/** AWS's regional endpoint unless another is given; the China regions live under amazonaws.com.cn. */
function endpointOf(options: DynamoDbClientOptions): string {
  if (options.endpoint) return options.endpoint;
  if (!/^[a-z]{2}(-[a-z]+)+-\d+$/.test(options.region)) {
    throw new Error(`"${options.region}" is not an AWS region: set AWS_REGION to the table's region, e.g. \`export AWS_REGION=eu-west-1\``);
  }
  return `https://dynamodb.${options.region}.amazonaws.com${options.region.startsWith('cn-') ? '.cn' : ''}/`;
}

function checkedCredentials(credentials: DynamoDbCredentials | undefined): DynamoDbCredentials {
  if (!credentials?.accessKeyId || !credentials.secretAccessKey) {
    throw new Error('DynamoDB needs credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN for temporary ones), or pass `credentials` to createDynamoDbClient');
  }
  return credentials;
}
