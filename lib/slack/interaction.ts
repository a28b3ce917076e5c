/** The action ids of toolgate's Approve / Reject buttons; each button's value is the approval id. */
export const APPROVE_ACTION_ID = 'toolgate_approve';
export const REJECT_ACTION_ID = 'toolgate_reject';
export type ApprovalActionId = typeof APPROVE_ACTION_ID | typeof REJECT_ACTION_ID;

/** The parts of a Slack `block_actions` interaction that toolgate acts on. */
export interface SlackBlockAction {
  type: 'block_actions';
  /** `name` is Slack's `username` (or `name`, sent for Home tab actions). */
  user: { id: string; name?: string };
  action: { action_id: ApprovalActionId; value: string };
  channel?: string;
  message_ts?: string;
  response_url?: string;
}

export type SlackInteractionParse = { ok: true; interaction: SlackBlockAction } | { ok: false; reason: string };

type Payload = Record<string, unknown>;

const isRecord = (value: unknown): value is Payload => typeof value === 'object' && value !== null && !Array.isArray(value);
const text = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

/**
 * Parses the body Slack posts to the interactivity URL: `application/x-www-form-urlencoded`
 * with a `payload` field holding JSON. Anything malformed, or any action that is not one of
 * toolgate's buttons, is a `{ ok: false, reason }` — never a throw.
 * Verify the signature on the raw body first (verifySlackRequest).
 */
export function parseSlackInteraction(rawBody: string): SlackInteractionParse {
  const field = new URLSearchParams(rawBody).get('payload');
  if (field === null) return { ok: false, reason: 'the body has no "payload" form field' };
  let payload: unknown;
  try {
    payload = JSON.parse(field);
  } catch {
    return { ok: false, reason: 'the "payload" field is not JSON' };
  }
  if (!isRecord(payload)) return { ok: false, reason: 'the payload is not a JSON object' };
  if (payload.type !== 'block_actions') return { ok: false, reason: `interaction type ${JSON.stringify(payload.type ?? null)} is not handled (expected "block_actions")` };
  return blockAction(payload);
}

function blockAction(payload: Payload): SlackInteractionParse {
  const user = isRecord(payload.user) ? payload.user : {};
  const userId = text(user.id);
  if (!userId) return { ok: false, reason: 'the payload has no user.id' };
  const action = approvalAction(payload.actions);
  if (!action.ok) return action;
  const name = text(user.username) ?? text(user.name);
  const channel = isRecord(payload.channel) ? text(payload.channel.id) : undefined;
  const container = isRecord(payload.container) ? payload.container : {};
  const message = isRecord(payload.message) ? payload.message : {};
  const messageTs = text(container.message_ts) ?? text(message.ts);
  const responseUrl = text(payload.response_url);
  const interaction: SlackBlockAction = {
    type: 'block_actions',
    user: name === undefined ? { id: userId } : { id: userId, name },
    action: action.value,
  };
  const channelId = channel ?? text(container.channel_id);
  if (channelId) interaction.channel = channelId;
  if (messageTs) interaction.message_ts = messageTs;
  if (responseUrl) interaction.response_url = responseUrl;
  return { ok: true, interaction };
}

type ActionParse = { ok: true; value: SlackBlockAction['action'] } | { ok: false; reason: string };

/** A button click carries exactly one action; it must be one of toolgate's, with an approval id. */
function approvalAction(actions: unknown): ActionParse {
  if (!Array.isArray(actions) || actions.length === 0) return { ok: false, reason: 'the payload has no actions' };
  const [first] = actions;
  if (!isRecord(first)) return { ok: false, reason: 'the first action is not an object' };
  const actionId = first.action_id;
  if (actionId !== APPROVE_ACTION_ID && actionId !== REJECT_ACTION_ID) {
    return { ok: false, reason: `action_id ${JSON.stringify(actionId ?? null)} is not a toolgate approval button` };
  }
  const value = text(first.value);
  if (!value) return { ok: false, reason: `the ${actionId} action has no value (the approval id)` };
  return { ok: true, value: { action_id: actionId, value } };
}
