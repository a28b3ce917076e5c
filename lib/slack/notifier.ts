import type { Logger } from '../dispatch/events.ts';
import type { Approval } from '../governance/approval.ts';
import type { ApprovalNotifier } from '../governance/notifier.ts';
import type { JsonObject } from '../registry/json.ts';
import type { SlackMessage } from './block-kit.ts';
import { approvalDecidedMessage, approvalEscalationMessage, approvalReminderMessage, approvalRequestMessage } from './blocks.ts';
import type { SlackClient } from './client.ts';

/**
 * Posts approval requests to a tenant's channel and updates them with the outcome. The client
 * already retries; a request that still fails is logged and the approval stays decidable
 * through the API, so nothing is lost.
 */
export class SlackApprovalNotifier implements ApprovalNotifier {
  readonly #client: SlackClient;
  readonly #channel: string;
  readonly #log: Logger;
  readonly #escalationChannel: string | undefined;

  constructor(client: SlackClient, channel: string, log: Logger, options: { escalationChannel?: string } = {}) {
    this.#client = client;
    this.#channel = channel;
    this.#log = log;
    this.#escalationChannel = options.escalationChannel;
  }

  async requested(approval: Approval, preview: JsonObject): Promise<{ channel: string; ts: string } | undefined> {
    try {
      return await this.#client.postMessage({ channel: this.#channel, ...approvalRequestMessage(approval, { arguments: preview }) });
    } catch (error) {
      this.#log('slack.approval.post_failed', { approval_id: approval.id, channel: this.#channel, error: (error as Error).message });
      return undefined;
    }
  }

  /** The request message (and its escalation post) now shows the outcome, without buttons. */
  async settled(approval: Approval, preview?: JsonObject): Promise<void> {
    await this.#update(approval, approvalDecidedMessage(approval, preview ? { arguments: preview } : {}));
  }

  /** The request message (and its escalation post) shows who approved so far, buttons kept. */
  async progressed(approval: Approval, preview: JsonObject): Promise<void> {
    await this.#update(approval, approvalRequestMessage(approval, { arguments: preview }), approvalEscalationMessage(approval, { arguments: preview }));
  }

  /** A thread reply on the request, and the request again in the escalation channel when there is one. */
  async reminded(approval: Approval, preview: JsonObject): Promise<{ escalation?: { channel: string; ts: string } }> {
    let escalation: { channel: string; ts: string } | undefined;
    if (this.#escalationChannel) {
      escalation = await this.#post(approval, 'slack.approval.escalation_failed', { channel: this.#escalationChannel, ...approvalEscalationMessage(approval, { arguments: preview }) });
    }
    if (approval.slack) {
      await this.#post(approval, 'slack.approval.reminder_failed', { channel: approval.slack.channel, thread_ts: approval.slack.ts, ...approvalReminderMessage(approval, escalation?.channel) });
    }
    return escalation ? { escalation } : {};
  }

  async #post(approval: Approval, failure: string, message: Parameters<SlackClient['postMessage']>[0]): Promise<{ channel: string; ts: string } | undefined> {
    try {
      return await this.#client.postMessage(message);
    } catch (error) {
      this.#log(failure, { approval_id: approval.id, channel: message.channel, error: (error as Error).message });
      return undefined;
    }
  }

  async #update(approval: Approval, message: SlackMessage, escalated: SlackMessage = message): Promise<void> {
    const targets = [approval.slack && { ...approval.slack, ...message }, approval.escalation && { ...approval.escalation, ...escalated }];
    for (const target of targets) {
      if (!target) continue;
      try {
        await this.#client.updateMessage(target);
      } catch (error) {
        this.#log('slack.approval.update_failed', { approval_id: approval.id, channel: target.channel, error: (error as Error).message });
      }
    }
  }
}
