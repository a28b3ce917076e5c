import type { Logger } from '../dispatch/events.ts';
import type { ToolTier } from '../registry/definition.ts';
import type { JsonObject } from '../registry/json.ts';
import type { GovernanceDecision, Governor } from './policy.ts';

/** What an approval handler answers for one call (the seed's ApprovalDecision). */
export type ApprovalDecision = { kind: 'granted' } | { kind: 'rejected'; reason: string } | { kind: 'deferred'; request_id: string };

/** Library users' hook: decide each call yourself (a chat product might ask in Slack and defer). */
export interface ApprovalHandler {
  approve(toolName: string, input: JsonObject, tier: ToolTier): ApprovalDecision | Promise<ApprovalDecision>;
}

/** Grants everything. Development only: every grant logs a warning. */
export class AutoApprove implements ApprovalHandler {
  readonly #log: Logger;

  constructor(log: Logger = (event, fields) => console.warn(JSON.stringify({ event, ...fields }))) {
    this.#log = log;
  }

  approve(toolName: string, _input: JsonObject, tier: ToolTier): ApprovalDecision {
    this.#log('governance.auto_approve', { level: 'warn', tool: toolName, tier, message: 'AutoApprove granted a call without any policy; use it in development only' });
    return { kind: 'granted' };
  }
}

/** Refuses everything. */
export class RejectAll implements ApprovalHandler {
  approve(toolName: string): ApprovalDecision {
    return { kind: 'rejected', reason: `all tool calls are rejected (RejectAll), including "${toolName}"` };
  }
}

/** Reads run; write and execute calls wait for a human (the request id is chosen by the gateway). */
export class TierPolicy implements ApprovalHandler {
  approve(toolName: string, _input: JsonObject, tier: ToolTier): ApprovalDecision {
    return tier === 'read' ? { kind: 'granted' } : { kind: 'deferred', request_id: '' };
  }
}

/** Plugs a handler into the pipeline: granted → run, rejected → denied, deferred → parked for approval. */
export function governorFromHandler(handler: ApprovalHandler): Governor {
  return {
    async decide({ definition, args }): Promise<GovernanceDecision> {
      const decision = await handler.approve(definition.name, args, definition.tier);
      switch (decision.kind) {
        case 'granted':
          return { action: 'grant', reason: 'granted by the approval handler' };
        case 'rejected':
          return { action: 'deny', reason: decision.reason };
        case 'deferred':
          return { action: 'review', reason: 'deferred to a human by the approval handler', ...(decision.request_id ? { request_id: decision.request_id } : {}) };
      }
    },
  };
}
