import { truncateMrkdwn } from './mrkdwn.ts';

/**
 * The few Block Kit shapes toolgate sends, with constructors that keep every text inside
 * Slack's limits: Slack refuses a whole message (`invalid_blocks`) for one text that is too long.
 */
export const LIMITS = {
  headerText: 150,
  sectionText: 3000,
  fieldText: 2000,
  fields: 10,
  contextText: 3000,
  contextElements: 10,
  buttonText: 75,
  buttonValue: 2000,
  /** Slack accepts far more top-level text, but shows about this much in notifications. */
  messageText: 3000,
} as const;

export type PlainText = { type: 'plain_text'; text: string; emoji?: boolean };
export type Mrkdwn = { type: 'mrkdwn'; text: string };
export type Button = { type: 'button'; action_id: string; text: PlainText; value: string; style?: 'primary' | 'danger' };

export type Block =
  | { type: 'header'; text: PlainText }
  | { type: 'section'; text?: Mrkdwn; fields?: Mrkdwn[] }
  | { type: 'context'; elements: Mrkdwn[] }
  | { type: 'actions'; block_id?: string; elements: Button[] }
  | { type: 'divider' };

/** What chat.postMessage / chat.update take: `text` is the notification and accessibility fallback. */
export interface SlackMessage {
  text: string;
  blocks: Block[];
}

const mrkdwn = (text: string, max: number): Mrkdwn => ({ type: 'mrkdwn', text: truncateMrkdwn(text, max) });

/** Header text is plain text: shown as is, so it needs no escaping, only a length cut. */
export function header(text: string): Block {
  return { type: 'header', text: { type: 'plain_text', text: truncateMrkdwn(text, LIMITS.headerText), emoji: true } };
}

export function section(text: string): Block {
  return { type: 'section', text: mrkdwn(text, LIMITS.sectionText) };
}

export function fieldsSection(fields: readonly string[]): Block {
  return { type: 'section', fields: fields.slice(0, LIMITS.fields).map((field) => mrkdwn(field, LIMITS.fieldText)) };
}

export function context(texts: readonly string[]): Block {
  return { type: 'context', elements: texts.slice(0, LIMITS.contextElements).map((text) => mrkdwn(text, LIMITS.contextText)) };
}

/** `value` is not cut: a shortened approval id would name another (or no) approval. */
export function button(label: string, actionId: string, value: string, style: 'primary' | 'danger'): Button {
  return { type: 'button', action_id: actionId, text: { type: 'plain_text', text: truncateMrkdwn(label, LIMITS.buttonText), emoji: true }, value, style };
}

export function actions(blockId: string, elements: Button[]): Block {
  return { type: 'actions', block_id: blockId, elements };
}

export function messageText(text: string): string {
  return truncateMrkdwn(text, LIMITS.messageText);
}
