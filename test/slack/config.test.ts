import { describe, expect, it } from 'vitest';
import { slackConfigFromEnv } from '../../lib/slack/config.ts';

describe('slackConfigFromEnv', () => {
  it('is undefined when Slack is not configured (empty values count as unset)', () => {
    expect(slackConfigFromEnv({})).toBeUndefined();
    expect(slackConfigFromEnv({ SLACK_BOT_TOKEN: '', SLACK_SIGNING_SECRET: '  ', OTHER: 'x' })).toBeUndefined();
  });

  it("reads token and secret, trimming pasted whitespace, with Slack's API URL by default", () => {
    expect(slackConfigFromEnv({ SLACK_BOT_TOKEN: ' xoxb-1\n', SLACK_SIGNING_SECRET: 'sec\n' })).toEqual({ botToken: 'xoxb-1', signingSecret: 'sec', apiUrl: 'https://slack.com/api' });
    expect(slackConfigFromEnv({ SLACK_BOT_TOKEN: 'xoxb-1', SLACK_SIGNING_SECRET: 'sec', SLACK_API_URL: 'http://127.0.0.1:9999/api/' })).toMatchObject({ apiUrl: 'http://127.0.0.1:9999/api' });
  });

  it('names the missing half of a half-done setup and how to set it', () => {
    expect(() => slackConfigFromEnv({ SLACK_BOT_TOKEN: 'xoxb-1' })).toThrow(
      /^SLACK_SIGNING_SECRET is not set but SLACK_BOT_TOKEN is \(Slack approvals need both\): .*Basic Information → App Credentials.*wrangler secret put SLACK_SIGNING_SECRET.*or unset SLACK_BOT_TOKEN to run without Slack$/,
    );
    expect(() => slackConfigFromEnv({ SLACK_SIGNING_SECRET: 'sec' })).toThrow(/^SLACK_BOT_TOKEN is not set but SLACK_SIGNING_SECRET is .*Bot User OAuth Token.*xoxb-.*chat:write.*wrangler secret put SLACK_BOT_TOKEN/);
  });

  it('refuses a non-text binding and a URL that is not http(s), without echoing values', () => {
    expect(() => slackConfigFromEnv({ SLACK_BOT_TOKEN: { secret: true }, SLACK_SIGNING_SECRET: 'sec' })).toThrow(/^SLACK_BOT_TOKEN is not text \(found a object binding\)/);
    const misplaced = () => slackConfigFromEnv({ SLACK_BOT_TOKEN: 'xoxb-1', SLACK_SIGNING_SECRET: 'sec', SLACK_API_URL: 'xoxb-pasted-here' });
    expect(misplaced).toThrow(/^SLACK_API_URL is not an http\(s\) URL: leave it unset for https:\/\/slack.com\/api/);
    expect(misplaced).not.toThrow(/pasted/);
  });
});
