import { afterEach, describe, expect, it } from 'vitest';
import { SlackApiError } from '../../lib/slack/api-errors.ts';
import { SlackClient, type SlackClientOptions } from '../../lib/slack/client.ts';
import { closedPort } from '../helpers/http-server.ts';
import { startFakeSlack, type FakeSlack, type FakeSlackOptions } from '../support/fake-slack.ts';

const blocks = [{ type: 'section' as const, text: { type: 'mrkdwn' as const, text: 'hi' } }];

describe('SlackClient against the fake Slack Web API', () => {
  let slack: FakeSlack | undefined;
  afterEach(async () => {
    await slack?.close();
    slack = undefined;
  });

  /** A client whose waits are recorded instead of slept, and whose log lines are kept. */
  async function setUp(fake: FakeSlackOptions = {}, options: Partial<SlackClientOptions> = {}) {
    slack = await startFakeSlack(fake);
    const delays: number[] = [];
    const logs: Array<{ event: string; fields: Record<string, unknown> }> = [];
    const client = new SlackClient({
      token: slack.token,
      apiUrl: slack.url,
      backoffMs: 10,
      sleep: async (ms) => void delays.push(ms),
      log: (event, fields) => logs.push({ event, fields }),
      ...options,
    });
    return { slack, client, delays, logs };
  }

  it('posts a message and updates it, with the bearer token and a JSON body', async () => {
    const { slack, client, logs } = await setUp();
    const posted = await client.postMessage({ channel: 'C1', text: 'Approval needed', blocks });
    expect(posted).toEqual({ channel: 'C1', ts: '1700000000.000100' });
    expect(await client.postMessage({ channel: 'C1', text: 'second', blocks })).toEqual({ channel: 'C1', ts: '1700000000.000200' });
    expect(await client.updateMessage({ ...posted, text: 'Approved', blocks: [] })).toEqual(posted);
    expect(slack.calls.map((call) => call.method)).toEqual(['chat.postMessage', 'chat.postMessage', 'chat.update']);
    expect(slack.calls[0].headers.authorization).toBe('Bearer xoxb-fake-token');
    expect(slack.calls[0].headers['content-type']).toBe('application/json; charset=utf-8');
    expect(slack.calls[0].body).toEqual({ channel: 'C1', text: 'Approval needed', blocks, unfurl_links: false, unfurl_media: false });
    expect(slack.calls[2].body).toEqual({ channel: 'C1', ts: '1700000000.000100', text: 'Approved', blocks: [] });
    expect(slack.messages.get('C1/1700000000.000100')).toMatchObject({ text: 'Approved', blocks: [], updates: 1 });
    expect(logs).toEqual([]);
  });

  it('retries after ok:false ratelimited, with growing backoff, then succeeds', async () => {
    const { slack, client, delays, logs } = await setUp({ failFirst: 2, error: 'ratelimited' });
    expect(await client.postMessage({ channel: 'C1', text: 't', blocks })).toEqual({ channel: 'C1', ts: '1700000000.000100' });
    expect(slack.calls).toHaveLength(3);
    expect(delays).toEqual([10, 20]);
    expect(logs).toEqual([
      { event: 'slack.api.failed', fields: { level: 'warn', method: 'chat.postMessage', error: 'ratelimited', status: 200, attempt: 1, attempts: 4, will_retry: true, retry_in_ms: 10 } },
      { event: 'slack.api.failed', fields: { level: 'warn', method: 'chat.postMessage', error: 'ratelimited', status: 200, attempt: 2, attempts: 4, will_retry: true, retry_in_ms: 20 } },
    ]);
  });

  it('throws a non-retryable error at once', async () => {
    const { slack, client, delays, logs } = await setUp({ failFirst: 5, error: 'channel_not_found' });
    const error = await client.postMessage({ channel: 'C404', text: 't', blocks }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SlackApiError);
    expect(error).toMatchObject({ code: 'channel_not_found', method: 'chat.postMessage', attempts: 1, status: 200 });
    expect((error as Error).message).toMatch(/^Slack chat.postMessage failed with channel_not_found after 1 attempt: check the approval channel id/);
    expect(slack.calls).toHaveLength(1);
    expect(delays).toEqual([]);
    expect(logs).toEqual([{ event: 'slack.api.failed', fields: expect.objectContaining({ level: 'error', error: 'channel_not_found', will_retry: false }) }]);
  });

  it('answers invalid_auth for a wrong token, without retrying', async () => {
    const { slack, delays } = await setUp();
    const client = new SlackClient({ token: 'xoxb-wrong', apiUrl: slack.url, sleep: async (ms) => void delays.push(ms) });
    await expect(client.updateMessage({ channel: 'C1', ts: '1.1', text: 't', blocks })).rejects.toMatchObject({ code: 'invalid_auth', attempts: 1, message: expect.stringMatching(/OAuth & Permissions/) });
    expect(slack.calls).toHaveLength(1);
    expect(delays).toEqual([]);
  });

  it('honours Retry-After on HTTP 429', async () => {
    const { slack, client, delays, logs } = await setUp({ failFirst: 1, failStatus: 429, retryAfterSeconds: 2 });
    expect(await client.postMessage({ channel: 'C1', text: 't', blocks })).toMatchObject({ ts: '1700000000.000100' });
    expect(slack.calls).toHaveLength(2);
    expect(delays).toEqual([2000]);
    expect(logs[0].fields).toMatchObject({ error: 'ratelimited', status: 429, retry_after_ms: 2000, retry_in_ms: 2000, will_retry: true });
  });

  it('gives up at once when Retry-After is longer than it may wait', async () => {
    const { slack, client, delays } = await setUp({ failFirst: 1, failStatus: 429, retryAfterSeconds: 120 }, { maxDelayMs: 30_000 });
    await expect(client.postMessage({ channel: 'C1', text: 't', blocks })).rejects.toMatchObject({ code: 'ratelimited', status: 429, attempts: 1 });
    expect(slack.calls).toHaveLength(1);
    expect(delays).toEqual([]);
  });

  it('retries HTTP 5xx and stops after the last attempt', async () => {
    const { slack, client, delays, logs } = await setUp({ failFirst: 10, failStatus: 503 }, { retries: 2 });
    await expect(client.postMessage({ channel: 'C1', text: 't', blocks })).rejects.toMatchObject({ name: 'SlackApiError', code: 'http_503', status: 503, attempts: 3 });
    expect(slack.calls).toHaveLength(3);
    expect(delays).toEqual([10, 20]);
    expect(logs.map((log) => log.fields.will_retry)).toEqual([true, true, false]);
  });

  it('retries a network failure (closed port), then throws SlackApiError', async () => {
    const delays: number[] = [];
    const logs: Array<{ event: string; fields: Record<string, unknown> }> = [];
    const client = new SlackClient({ token: 't', apiUrl: `http://127.0.0.1:${await closedPort()}`, retries: 2, backoffMs: 5, sleep: async (ms) => void delays.push(ms), log: (event, fields) => logs.push({ event, fields }) });
    const error = await client.postMessage({ channel: 'C1', text: 't', blocks }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SlackApiError);
    expect(error).toMatchObject({ code: 'network_error', attempts: 3, status: undefined });
    expect((error as Error).message).toMatch(/ECONNREFUSED.*check SLACK_API_URL/);
    expect(delays).toEqual([5, 10]);
    expect(logs).toHaveLength(3);
    expect(logs.every((log) => log.event === 'slack.api.failed' && log.fields.error === 'network_error')).toBe(true);
    // The token never reaches the log.
    expect(JSON.stringify(logs)).not.toContain('Bearer');
  });

  it('waits for real between attempts by default', async () => {
    slack = await startFakeSlack({ failFirst: 1 });
    const client = new SlackClient({ token: slack.token, apiUrl: slack.url, backoffMs: 1 });
    expect(await client.postMessage({ channel: 'C1', text: 't', blocks })).toMatchObject({ channel: 'C1' });
    expect(slack.calls).toHaveLength(2);
  });

  it('treats a message_not_found on update as final', async () => {
    const { client } = await setUp();
    await expect(client.updateMessage({ channel: 'C1', ts: '1.1', text: 't', blocks })).rejects.toMatchObject({ code: 'message_not_found', attempts: 1 });
  });
});
