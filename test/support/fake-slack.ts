import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { APPROVE_ACTION_ID, REJECT_ACTION_ID } from '../../lib/slack/interaction.ts';
import { SLACK_SIGNATURE_HEADER, SLACK_TIMESTAMP_HEADER, signSlackRequest } from '../../lib/slack/signature.ts';

/*
 * A stand-in for Slack's Web API (the one part of the approval flow that cannot run here):
 * chat.postMessage and chat.update over JSON with a Bearer token, answering like Slack does
 * (HTTP 200 with `ok: false` for errors), recording every call and keeping the messages.
 */

export interface FakeSlackOptions {
  /** The bot token it accepts (default `xoxb-fake-token`); any other answers `invalid_auth`. */
  token?: string;
  /** The first n calls fail (before the token is even checked). */
  failFirst?: number;
  /** The Slack error code of those failures (default `ratelimited`). */
  error?: string;
  /** Their HTTP status: 200 (Slack's `ok: false`, default), 429 (with Retry-After) or 5xx (a plain-text body). */
  failStatus?: number;
  /** Retry-After seconds sent with a 429 (default 1). */
  retryAfterSeconds?: number;
}

export interface FakeSlackCall {
  /** The Web API method, e.g. `chat.postMessage`. */
  method: string;
  body: Record<string, unknown>;
  headers: IncomingHttpHeaders;
}

export interface FakeSlackMessage {
  channel: string;
  ts: string;
  text: unknown;
  blocks: unknown;
  updates: number;
}

export interface FakeSlack {
  /** Use as SLACK_API_URL / SlackClient's apiUrl. */
  url: string;
  token: string;
  calls: FakeSlackCall[];
  /** Current messages by `channel/ts`. */
  messages: Map<string, FakeSlackMessage>;
  close(): Promise<void>;
}

type Answer = { status: number; body: Record<string, unknown> | string; headers?: Record<string, string> };

export async function startFakeSlack(options: FakeSlackOptions = {}): Promise<FakeSlack> {
  const token = options.token ?? 'xoxb-fake-token';
  const calls: FakeSlackCall[] = [];
  const messages = new Map<string, FakeSlackMessage>();
  let posted = 0;
  const answer = (method: string, body: Record<string, unknown>, headers: IncomingHttpHeaders): Answer => {
    if (calls.length <= (options.failFirst ?? 0)) return failure(options);
    if (headers.authorization !== `Bearer ${token}`) return slackError('invalid_auth');
    if (method === 'chat.postMessage') {
      posted += 1;
      return postMessage(messages, body, `1700000000.${String(posted * 100).padStart(6, '0')}`);
    }
    if (method === 'chat.update') return updateMessage(messages, body);
    return { status: 404, body: { ok: false, error: 'unknown_method' } };
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const method = (req.url ?? '').replace(/^\/+/, '').split('?')[0];
      const body = parseJson(Buffer.concat(chunks).toString('utf8'));
      calls.push({ method, body: body ?? {}, headers: req.headers });
      send(res, req.method !== 'POST' ? { status: 405, body: 'POST only' } : body ? answer(method, body, req.headers) : slackError('invalid_json'));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    token,
    calls,
    messages,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

function failure(options: FakeSlackOptions): Answer {
  const status = options.failStatus ?? 200;
  const error = options.error ?? 'ratelimited';
  if (status === 429) return { status, body: { ok: false, error }, headers: { 'retry-after': String(options.retryAfterSeconds ?? 1) } };
  if (status >= 500) return { status, body: 'upstream failure' };
  return { status, body: { ok: false, error } };
}

function postMessage(messages: Map<string, FakeSlackMessage>, body: Record<string, unknown>, ts: string): Answer {
  if (typeof body.channel !== 'string' || body.channel === '') return slackError('channel_not_found');
  if (body.text === undefined && body.blocks === undefined) return slackError('no_text');
  messages.set(`${body.channel}/${ts}`, { channel: body.channel, ts, text: body.text, blocks: body.blocks, updates: 0 });
  return { status: 200, body: { ok: true, channel: body.channel, ts, message: { text: body.text, blocks: body.blocks } } };
}

function updateMessage(messages: Map<string, FakeSlackMessage>, body: Record<string, unknown>): Answer {
  const message = messages.get(`${String(body.channel)}/${String(body.ts)}`);
  if (!message) return slackError('message_not_found');
  message.text = body.text;
  message.blocks = body.blocks;
  message.updates += 1;
  return { status: 200, body: { ok: true, channel: message.channel, ts: message.ts, text: body.text } };
}

const slackError = (error: string): Answer => ({ status: 200, body: { ok: false, error } });

function parseJson(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function send(res: ServerResponse, { status, body, headers = {} }: Answer): void {
  const json = typeof body !== 'string';
  res.writeHead(status, { 'content-type': json ? 'application/json; charset=utf-8' : 'text/plain', ...headers });
  res.end(json ? JSON.stringify(body) : body);
}

/** A Slack-signed interactivity request: the form body and the headers Slack sends with it. */
export async function signedInteraction(input: { signingSecret: string; payload: unknown; timestamp?: number }): Promise<{ body: string; headers: Record<string, string> }> {
  const timestamp = String(input.timestamp ?? Math.floor(Date.now() / 1000));
  const body = new URLSearchParams({ payload: JSON.stringify(input.payload) }).toString();
  return {
    body,
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      [SLACK_TIMESTAMP_HEADER]: timestamp,
      [SLACK_SIGNATURE_HEADER]: await signSlackRequest(input.signingSecret, timestamp, body),
    },
  };
}

/** A block_actions payload as Slack sends it when someone clicks toolgate's Approve or Reject button. */
export function blockActionsPayload(input: {
  decision: 'approve' | 'reject';
  approvalId: string;
  user?: { id: string; username?: string };
  channel?: string;
  messageTs?: string;
}): Record<string, unknown> {
  const user = input.user ?? { id: 'U2CERLKJA', username: 'roadrunner' };
  const channel = input.channel ?? 'C0APPROVALS';
  const messageTs = input.messageTs ?? '1700000000.000100';
  const approve = input.decision === 'approve';
  return {
    type: 'block_actions',
    team: { id: 'T1DC2JH3J', domain: 'testteamnow' },
    user: { id: user.id, username: user.username ?? 'someone', name: user.username ?? 'someone', team_id: 'T1DC2JH3J' },
    api_app_id: 'A0TOOLGATE',
    token: 'verification-token-unused',
    container: { type: 'message', message_ts: messageTs, channel_id: channel, is_ephemeral: false },
    trigger_id: '398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c',
    channel: { id: channel, name: 'approvals' },
    message: { type: 'message', ts: messageTs, text: 'Approval needed', bot_id: 'B0TOOLGATE' },
    response_url: `https://hooks.slack.com/actions/T1DC2JH3J/${messageTs.replace('.', '')}/fake`,
    actions: [{
      type: 'button',
      action_id: approve ? APPROVE_ACTION_ID : REJECT_ACTION_ID,
      block_id: 'toolgate_decision',
      text: { type: 'plain_text', text: approve ? 'Approve' : 'Reject', emoji: true },
      value: input.approvalId,
      style: approve ? 'primary' : 'danger',
      action_ts: '1700000100.000001',
    }],
  };
}
