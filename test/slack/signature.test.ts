import { describe, expect, it } from 'vitest';
import { signSlackRequest, verifySlackRequest } from '../../lib/slack/signature.ts';

// The worked example of Slack's "Verifying requests from Slack" page (docs.slack.dev/authentication/
// verifying-requests-from-slack), as also used by slackapi/python-slack-sdk's verifier tests.
const SIGNING_SECRET = '8f742231b10e8888abcd99yyyzzz85a5';
const TIMESTAMP = '1531420618';
const BODY =
  'token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c';
const SIGNATURE = 'v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503';
const NOW = Number(TIMESTAMP) + 42;

const verify = (overrides: Partial<Parameters<typeof verifySlackRequest>[0]> = {}) =>
  verifySlackRequest({ signingSecret: SIGNING_SECRET, timestamp: TIMESTAMP, signature: SIGNATURE, rawBody: BODY, nowSeconds: NOW, ...overrides });

describe('Slack request signatures', () => {
  it("verifies Slack's published example", async () => {
    expect(await signSlackRequest(SIGNING_SECRET, TIMESTAMP, BODY)).toBe(SIGNATURE);
    expect(await verify()).toEqual({ ok: true });
    expect(await verify({ rawBody: new TextEncoder().encode(BODY) })).toEqual({ ok: true });
  });

  it('refuses a forged signature, a tampered body and another secret', async () => {
    expect(await verify({ signature: 'v0=' + '0'.repeat(64) })).toMatchObject({ ok: false, reason: expect.stringMatching(/does not match/) });
    expect(await verify({ signature: SIGNATURE.replace('v0=', 'v1=') })).toMatchObject({ ok: false });
    expect(await verify({ signature: SIGNATURE.toUpperCase() })).toMatchObject({ ok: false });
    expect(await verify({ rawBody: BODY.replace('user_name=roadrunner', 'user_name=coyote') })).toMatchObject({ ok: false });
    expect(await verify({ rawBody: `${BODY}&extra=1` })).toMatchObject({ ok: false });
    expect(await verify({ signingSecret: 'another-secret' })).toMatchObject({ ok: false });
  });

  it('refuses timestamps more than 300 s from now, in either direction', async () => {
    const ts = Number(TIMESTAMP);
    expect(await verify({ nowSeconds: ts + 300 })).toEqual({ ok: true });
    expect(await verify({ nowSeconds: ts - 300 })).toEqual({ ok: true });
    expect(await verify({ nowSeconds: ts + 301 })).toMatchObject({ ok: false, reason: expect.stringMatching(/more than 300 s from now/) });
    expect(await verify({ nowSeconds: ts - 301 })).toMatchObject({ ok: false, reason: expect.stringMatching(/more than 300 s/) });
    expect(await verify({ nowSeconds: ts + 61, toleranceSeconds: 60 })).toMatchObject({ ok: false });
    // Against the real clock the 2018 example is long stale.
    expect(await verify({ nowSeconds: undefined })).toMatchObject({ ok: false });
  });

  it('refuses missing headers, a non-numeric timestamp and an empty signing secret', async () => {
    expect(await verify({ timestamp: null })).toEqual({ ok: false, reason: 'missing x-slack-request-timestamp header' });
    expect(await verify({ signature: undefined })).toEqual({ ok: false, reason: 'missing x-slack-signature header' });
    expect(await verify({ signature: '' })).toMatchObject({ ok: false });
    for (const timestamp of ['1531420618.5', 'abc', '-1531420618', ' 1531420618', '1e9']) {
      expect(await verify({ timestamp })).toMatchObject({ ok: false, reason: expect.stringMatching(/not a unix timestamp/) });
    }
    expect(await verify({ signingSecret: '' })).toEqual({ ok: false, reason: 'no Slack signing secret is configured' });
  });

  it('signs what it verifies', async () => {
    const body = 'payload=%7B%22type%22%3A%22block_actions%22%7D';
    const signature = await signSlackRequest('s3cret', 1700000000, body);
    expect(signature).toMatch(/^v0=[0-9a-f]{64}$/);
    expect(await verifySlackRequest({ signingSecret: 's3cret', timestamp: '1700000000', signature, rawBody: body, nowSeconds: 1700000010 })).toEqual({ ok: true });
  });
});
