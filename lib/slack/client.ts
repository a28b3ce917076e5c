import { attemptSlackCall, type AttemptFailure, type SlackResponseBody } from './api-attempt.ts';
import { SlackApiError } from './api-errors.ts';
import type { Block } from './block-kit.ts';

/** Same shape as the gateway's logger: one JSON object per event. */
export type SlackLogger = (event: string, fields: Record<string, unknown>) => void;

export const DEFAULT_SLACK_API_URL = 'https://slack.com/api';

export interface SlackClientOptions {
  /** Bot User OAuth Token (xoxb-…) with the chat:write scope. */
  token: string;
  apiUrl?: string;
  fetch?: typeof fetch;
  /** Retries after the first attempt (so at most retries + 1 attempts). Default 3. */
  retries?: number;
  /** First backoff delay; doubles on each retry. Default 300 ms. */
  backoffMs?: number;
  /** A longer wait (a large Retry-After) is not slept through: the call fails at once. Default 30 s. */
  maxDelayMs?: number;
  /** Per attempt. Default 10 s. */
  timeoutMs?: number;
  log?: SlackLogger;
  /** For tests: how a delay is waited. */
  sleep?: (ms: number) => Promise<void>;
}

export interface SlackMessageRef {
  channel: string;
  ts: string;
}

/**
 * The two Web API methods toolgate needs, over fetch (every runtime). Failures are logged as
 * `slack.api.failed` and retried with exponential backoff (Retry-After on 429); errors that no
 * retry can fix (NON_RETRYABLE_SLACK_ERRORS) and the last failure throw SlackApiError.
 */
export class SlackClient {
  readonly #token: string;
  readonly #apiUrl: string;
  readonly #fetch: typeof fetch;
  readonly #retries: number;
  readonly #backoffMs: number;
  readonly #maxDelayMs: number;
  readonly #timeoutMs: number;
  readonly #log: SlackLogger;
  readonly #sleep: (ms: number) => Promise<void>;

  constructor(options: SlackClientOptions) {
    this.#token = options.token;
    this.#apiUrl = (options.apiUrl ?? DEFAULT_SLACK_API_URL).replace(/\/+$/, '');
    // Called unbound: a Worker's global fetch throws "Illegal invocation" when called as a method.
    this.#fetch = options.fetch ?? ((input, init) => fetch(input, init));
    this.#retries = Math.max(0, options.retries ?? 3);
    this.#backoffMs = Math.max(0, options.backoffMs ?? 300);
    this.#maxDelayMs = options.maxDelayMs ?? 30_000;
    this.#timeoutMs = options.timeoutMs ?? 10_000;
    this.#log = options.log ?? (() => {});
    this.#sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
  }

  /** chat.postMessage (a thread reply with `thread_ts`); answers the channel id and the message's ts (needed to update it). */
  async postMessage(message: { channel: string; text: string; blocks: Block[]; thread_ts?: string }): Promise<SlackMessageRef> {
    const body = await this.call('chat.postMessage', { ...message, unfurl_links: false, unfurl_media: false });
    return messageRef('chat.postMessage', body);
  }

  /** chat.update: replaces the text and blocks of a message the bot posted. */
  async updateMessage(message: { channel: string; ts: string; text: string; blocks: Block[] }): Promise<SlackMessageRef> {
    const body = await this.call('chat.update', message);
    return messageRef('chat.update', body);
  }

  /** Any Web API method taking a JSON body; answers Slack's body when `ok` is true. */
  async call(method: string, body: Record<string, unknown>): Promise<SlackResponseBody> {
    const attempts = this.#retries + 1;
    for (let attempt = 1; ; attempt++) {
      const outcome = await attemptSlackCall({ fetch: this.#fetch, url: `${this.#apiUrl}/${method}`, token: this.#token, body, timeoutMs: this.#timeoutMs });
      if (outcome.ok) return outcome.body;
      const delay = outcome.retryAfterMs ?? this.#backoffMs * 2 ** (attempt - 1);
      const willRetry = outcome.retryable && attempt < attempts && delay <= this.#maxDelayMs;
      this.#log('slack.api.failed', failureFields(method, outcome, attempt, attempts, willRetry ? delay : undefined));
      if (!willRetry) throw new SlackApiError(method, outcome.code, { attempts: attempt, ...pick(outcome) });
      await this.#sleep(delay);
    }
  }
}

function failureFields(method: string, outcome: AttemptFailure, attempt: number, attempts: number, retryInMs: number | undefined): Record<string, unknown> {
  return {
    level: retryInMs === undefined ? 'error' : 'warn',
    method,
    error: outcome.code,
    ...(outcome.status === undefined ? {} : { status: outcome.status }),
    ...(outcome.detail === undefined ? {} : { detail: outcome.detail }),
    ...(outcome.retryAfterMs === undefined ? {} : { retry_after_ms: outcome.retryAfterMs }),
    attempt,
    attempts,
    will_retry: retryInMs !== undefined,
    ...(retryInMs === undefined ? {} : { retry_in_ms: retryInMs }),
  };
}

function pick(outcome: AttemptFailure): { status?: number; detail?: string } {
  return { ...(outcome.status === undefined ? {} : { status: outcome.status }), ...(outcome.detail === undefined ? {} : { detail: outcome.detail }) };
}

function messageRef(method: string, body: SlackResponseBody): SlackMessageRef {
  if (typeof body.channel !== 'string' || typeof body.ts !== 'string') {
    throw new SlackApiError(method, 'invalid_response', { attempts: 1, detail: 'the answer has no channel and ts' });
  }
  return { channel: body.channel, ts: body.ts };
}
