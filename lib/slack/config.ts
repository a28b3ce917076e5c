import { DEFAULT_SLACK_API_URL } from './client.ts';

export interface SlackConfig {
  botToken: string;
  signingSecret: string;
  apiUrl: string;
}

type Env = Readonly<Record<string, unknown>>;

const HOW_TO_SET: Record<string, string> = {
  SLACK_BOT_TOKEN: "set it to your Slack app's Bot User OAuth Token (api.slack.com/apps → your app → OAuth & Permissions; starts with xoxb-, needs the chat:write scope), e.g. `export SLACK_BOT_TOKEN=xoxb-…` or, on Workers, `wrangler secret put SLACK_BOT_TOKEN`",
  SLACK_SIGNING_SECRET: "set it to your Slack app's Signing Secret (api.slack.com/apps → your app → Basic Information → App Credentials), e.g. `export SLACK_SIGNING_SECRET=…` or, on Workers, `wrangler secret put SLACK_SIGNING_SECRET`",
};

/**
 * Slack settings from environment variables or Worker bindings. Slack is optional: with neither
 * SLACK_BOT_TOKEN nor SLACK_SIGNING_SECRET set the answer is undefined (approvals go through the
 * API only). One without the other is a half-done setup and throws, naming the missing one.
 * SLACK_API_URL defaults to Slack's (tests point it at a fake).
 */
export function slackConfigFromEnv(env: Env): SlackConfig | undefined {
  const botToken = optional(env, 'SLACK_BOT_TOKEN');
  const signingSecret = optional(env, 'SLACK_SIGNING_SECRET');
  if (botToken === undefined && signingSecret === undefined) return undefined;
  if (botToken === undefined) throw missing('SLACK_BOT_TOKEN', 'SLACK_SIGNING_SECRET');
  if (signingSecret === undefined) throw missing('SLACK_SIGNING_SECRET', 'SLACK_BOT_TOKEN');
  return { botToken, signingSecret, apiUrl: apiUrl(env) };
}

function missing(name: string, present: string): Error {
  return new Error(`${name} is not set but ${present} is (Slack approvals need both): ${HOW_TO_SET[name]}; or unset ${present} to run without Slack`);
}

function apiUrl(env: Env): string {
  const url = optional(env, 'SLACK_API_URL');
  if (url === undefined) return DEFAULT_SLACK_API_URL;
  if (!/^https?:\/\/[^\s/?#]+/.test(url)) {
    throw new Error(`SLACK_API_URL is not an http(s) URL: leave it unset for ${DEFAULT_SLACK_API_URL}, or set it to a Slack-compatible Web API base URL`);
  }
  return url.replace(/\/+$/, '');
}

/** Unset and empty are the same (an empty binding is a common leftover); whitespace from a pasted value is dropped. */
function optional(env: Env, name: string): string | undefined {
  const value = env[name];
  if (value === undefined || value === null) return undefined;
  // Not echoed: a secret pasted into the wrong binding must not end up in logs.
  if (typeof value !== 'string') throw new Error(`${name} is not text (found a ${typeof value} binding): ${HOW_TO_SET[name] ?? 'set it to a URL or leave it unset'}`);
  const trimmed = value.trim();
  return trimmed === '' ? undefined : trimmed;
}
