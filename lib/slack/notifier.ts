import type { Logger } from '../dispatch/events.ts';
import type { Approval } from '../governance/approval.ts';
import type { ApprovalNotifier } from '../governance/notifier.ts';
import type { JsonObject } from '../registry/json.ts';
import { approvalDecidedMessage, approvalRequestMessage } from './blocks.ts';
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

  constructor(client: SlackClient, channel: string, log: Logger) {
    this.#client = client;
    this.#channel = channel;
    this.#log = log;
  }

  async requested(approval: Approval, preview: JsonObject): Promise<{ channel: string; ts: string } | undefined> {
    try {
      return await this.#client.postMessage({ channel: this.#channel, ...approvalRequestMessage(approval, { arguments: preview }) });
    } catch (error) {
      this.#log('slack.approval.post_failed', { approval_id: approval.id, channel: this.#channel, error: (error as Error).message });
      return undefined;
    }
  }

  async settled(approval: Approval, preview?: JsonObject): Promise<void> {
    if (!approval.slack) return;
    try {
      await this.#client.updateMessage({ ...approval.slack, ...approvalDecidedMessage(approval, preview ? { arguments: preview } : {}) });
    } catch (error) {
      this.#log('slack.approval.update_failed', { approval_id: approval.id, error: (error as Error).message });
    }
  }
}
