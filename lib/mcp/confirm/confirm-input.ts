import { previewArguments } from '../../dispatch/approvals/notice.ts';
import type { DispatchDeps } from '../../dispatch/context.ts';
import type { Approval } from '../../governance/approval.ts';
import { CLIENT_CAPABILITIES_META_KEY, metaOf } from '../../mcp-wire/envelope.ts';
import { isPlainObject, type JsonObject } from '../../mcp-wire/json-rpc.ts';

/**
 * How a 2026-07-28 client is asked to have its user confirm a call: one URL-mode
 * `elicitation/create` input request (the client shows the user the link and opens it in a
 * browser, the model never sees it) to the console's confirm page. Only a request that declares
 * `elicitation.url` in its own client capabilities is asked (the spec's rule), and only where the
 * gateway knows its console's address. The user decides on the page, signed in as the requester;
 * the client's answer to the request means only "opened" (accept) or "declined" / "dismissed".
 */

/** The key of toolgate's one input request (unique for a task's lifetime: there is only ever this one). */
export const CONFIRM_INPUT = 'toolgate.confirm';

/** How much of the arguments the request's message shows (the page shows them all, masked). */
const MESSAGE_ARGUMENT_CHARS = 300;

/** Builds the input request for an approval waiting for its requester's confirmation. */
export interface ConfirmAsker {
  inputRequests(approval: Approval): Promise<JsonObject>;
}

/** Whether this request's client capabilities take URL-mode elicitation. */
export function declaresUrlElicitation(params: unknown): boolean {
  const capabilities = metaOf(params)?.[CLIENT_CAPABILITIES_META_KEY];
  const elicitation = isPlainObject(capabilities) ? capabilities.elicitation : undefined;
  return isPlainObject(elicitation) && isPlainObject(elicitation.url);
}

/** The asker for a request that can be asked (it declares URL elicitation, and the console's address is known); else none. */
export function confirmAsker(deps: DispatchDeps, originOfConsole: (() => string | undefined) | undefined, params: unknown): ConfirmAsker | undefined {
  if (!originOfConsole || !deps.store || !declaresUrlElicitation(params)) return undefined;
  const consoleOrigin = originOfConsole();
  if (!consoleOrigin) return undefined;
  return {
    async inputRequests(approval) {
      const shown = JSON.stringify(await previewArguments(deps, approval));
      const args = shown.length > MESSAGE_ARGUMENT_CHARS ? `${shown.slice(0, MESSAGE_ARGUMENT_CHARS - 1)}…` : shown;
      const message = `Confirm \`${approval.tool}\` with ${args} in the toolgate console (approval ${approval.id}, expires ${approval.expires_at}). It runs only once you confirm it there.`;
      const url = `${consoleOrigin}/console/confirm/${approval.id}`;
      return { [CONFIRM_INPUT]: { method: 'elicitation/create', params: { mode: 'url', message, url } } };
    },
  };
}

/** The user's answer to the confirm request, as the client reports it (an ElicitResult's `action`), if it sent one. */
export function confirmResponse(inputResponses: unknown): 'accept' | 'decline' | 'cancel' | undefined {
  const response = isPlainObject(inputResponses) ? inputResponses[CONFIRM_INPUT] : undefined;
  const action = isPlainObject(response) ? response.action : undefined;
  return action === 'accept' || action === 'decline' || action === 'cancel' ? action : undefined;
}
