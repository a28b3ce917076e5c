import type { Logger } from '../dispatch/events.ts';
import type { ApprovalNotifier } from '../governance/notifier.ts';
import type { Manifest } from '../registry/manifest/manifest.ts';
import { SlackClient } from './client.ts';
import type { SlackConfig } from './config.ts';
import { SlackApprovalNotifier } from './notifier.ts';

/** A tenant gets Slack approval requests when the gateway has a bot token and the manifest names a channel. */
export function slackNotifierFor(manifest: Manifest, slack: SlackConfig | undefined, log: Logger): ApprovalNotifier | undefined {
  const channel = manifest.approvals?.slack_channel;
  if (!slack || !channel) return undefined;
  return new SlackApprovalNotifier(new SlackClient({ token: slack.botToken, apiUrl: slack.apiUrl, log }), channel, log, { escalationChannel: manifest.approvals?.escalation_channel });
}
