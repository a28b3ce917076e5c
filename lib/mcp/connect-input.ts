import type { ToolResult } from '../dispatch/call.ts';
import type { JsonObject } from '../mcp-wire/json-rpc.ts';
import { toCallToolResult } from './call-result.ts';
import { declaresUrlElicitation } from './confirm/confirm-input.ts';

/** The key of the input request that asks the user to connect (lib/connections). */
export const CONNECT_INPUT = 'toolgate.connect';

/**
 * A call that needs its user to connect a service, for a 2026-07-28 client declaring URL-mode
 * elicitation: an `input_required` answer whose one input request is the connect link, which the
 * client shows its user and opens in a browser (the model never sees it). The client's retry runs
 * the call afresh, as the user's grant now stands. Undefined for any other call or client: the
 * result's own text carries the link.
 */
export function askToConnect(params: unknown, result: ToolResult): JsonObject | undefined {
  const url = result.status === 'authorization_required' ? result.error?.details?.authorization_url : undefined;
  if (typeof url !== 'string' || !declaresUrlElicitation(params)) return undefined;
  const connection = String(result.error?.details?.connection ?? '');
  const message = `\`${result.name}\` acts as you at "${connection}". Open the link, sign in there and allow access; the call then runs. The link works once, for 10 minutes.`;
  return { resultType: 'input_required', inputRequests: { [CONNECT_INPUT]: { method: 'elicitation/create', params: { mode: 'url', message, url } } }, _meta: toCallToolResult(result)._meta };
}
