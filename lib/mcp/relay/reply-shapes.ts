import { isPlainObject } from '../../mcp-wire/json-rpc.ts';

/**
 * The shape a client's answer to a relayed request must have before it goes to the upstream
 * (the spec's CreateMessageResult, ElicitResult, ListRootsResult): an upstream is handed only
 * what it asked for, and a client that sent something else hears what was wrong.
 */

type Check = (result: Record<string, unknown>) => string | undefined;

/** The largest request or answer relayed (as JSON text): both are kept in store records, which every adapter must hold. */
export const MAX_RELAYED_CHARS = 256 * 1024;

const ROLES = ['user', 'assistant'];
const ACTIONS = ['accept', 'decline', 'cancel'];

function contentBlockProblem(block: unknown, at: string): string | undefined {
  return isPlainObject(block) && typeof block.type === 'string' ? undefined : `${at} must be a content block (an object with a string "type")`;
}

const createMessage: Check = (result) => {
  if (!ROLES.includes(result.role as string)) return 'role must be "user" or "assistant"';
  if (typeof result.model !== 'string') return 'model must be a string (the model that answered)';
  const content = result.content;
  if (Array.isArray(content)) return content.map((block, index) => contentBlockProblem(block, `content[${index}]`)).find(Boolean);
  return contentBlockProblem(content, 'content');
};

function elicitedValueProblem(value: unknown): boolean {
  if (typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value))) return false;
  return !(Array.isArray(value) && value.every((item) => typeof item === 'string'));
}

const elicit: Check = (result) => {
  if (!ACTIONS.includes(result.action as string)) return 'action must be "accept", "decline" or "cancel"';
  const content = result.content;
  if (content === undefined) return undefined;
  if (!isPlainObject(content)) return 'content must be an object of the fields the user filled in';
  const bad = Object.keys(content).find((field) => elicitedValueProblem(content[field]));
  return bad === undefined ? undefined : `content.${bad} must be a string, a number, a boolean or an array of strings`;
};

const listRoots: Check = (result) => {
  if (!Array.isArray(result.roots)) return 'roots must be an array of {uri, name?}';
  const bad = result.roots.findIndex((root) => !isPlainObject(root) || typeof root.uri !== 'string' || !root.uri.startsWith('file://') || (root.name !== undefined && typeof root.name !== 'string'));
  return bad === -1 ? undefined : `roots[${bad}] must be {uri: "file://…", name?: string}`;
};

const CHECKS: Readonly<Record<string, Check>> = {
  'sampling/createMessage': createMessage,
  'elicitation/create': elicit,
  'roots/list': listRoots,
};

/** What is wrong with `result` as the answer to a `method` request, or undefined when it is well-formed. */
export function replyProblem(method: string, result: unknown): string | undefined {
  if (!isPlainObject(result)) return `the answer to ${method} must be an object`;
  if (JSON.stringify(result).length > MAX_RELAYED_CHARS) return `the answer to ${method} is larger than ${MAX_RELAYED_CHARS / 1024} KiB, more than toolgate relays`;
  const check = CHECKS[method];
  const problem = check ? check(result) : `toolgate relays no ${method} requests`;
  return problem && `the answer to ${method} is malformed: ${problem}`;
}
