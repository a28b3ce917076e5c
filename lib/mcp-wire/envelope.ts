import { isPlainObject, type JsonObject } from './json-rpc.ts';

/**
 * The per-request `_meta` envelope of the 2026-07-28 revision: every request names its protocol
 * revision and the client's capabilities (and, optionally, the client and a log level) in
 * `params._meta`, since there is no `initialize` to state them once. A request claims the
 * envelope exactly when the protocol-version key is present; the other keys alone claim nothing.
 */

export const PROTOCOL_VERSION_META_KEY = 'io.modelcontextprotocol/protocolVersion';
export const CLIENT_INFO_META_KEY = 'io.modelcontextprotocol/clientInfo';
export const CLIENT_CAPABILITIES_META_KEY = 'io.modelcontextprotocol/clientCapabilities';
export const LOG_LEVEL_META_KEY = 'io.modelcontextprotocol/logLevel';
/** On results: who answered. */
export const SERVER_INFO_META_KEY = 'io.modelcontextprotocol/serverInfo';

/** Keys an envelope must carry (client info is only a SHOULD: a server must not require it). */
export const REQUIRED_ENVELOPE_KEYS: readonly string[] = [PROTOCOL_VERSION_META_KEY, CLIENT_CAPABILITIES_META_KEY];

export const LOG_LEVELS: readonly string[] = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];

/** A client's capabilities on one request (2026 shape: no `tasks`; extensions by identifier). */
export interface ClientCapabilities {
  experimental?: JsonObject;
  sampling?: { context?: JsonObject; tools?: JsonObject };
  elicitation?: { form?: JsonObject; url?: JsonObject };
  roots?: { listChanged?: boolean };
  extensions?: Record<string, JsonObject>;
}

export interface ClientInfo {
  name: string;
  version: string;
  title?: string;
}

/** A validated envelope. */
export interface RequestEnvelope {
  protocolVersion: string;
  clientCapabilities: ClientCapabilities;
  clientInfo?: ClientInfo;
  logLevel?: string;
}

/** One thing wrong with an envelope: which key (a dotted path inside `_meta`), and what. */
export interface EnvelopeIssue {
  key: string;
  problem: string;
}

/** The `_meta` object of a message's params, when there is one. */
export function metaOf(params: unknown): JsonObject | undefined {
  if (!isPlainObject(params)) return undefined;
  const meta = params._meta;
  return isPlainObject(meta) ? meta : undefined;
}

/** Whether the params claim the envelope (the protocol-version key is present, whatever its value). */
export function hasEnvelopeClaim(params: unknown): boolean {
  const meta = metaOf(params);
  return meta !== undefined && Object.hasOwn(meta, PROTOCOL_VERSION_META_KEY);
}

/** The revision a claim names, when its value is a string. */
export function claimedVersion(params: unknown): string | undefined {
  const value = metaOf(params)?.[PROTOCOL_VERSION_META_KEY];
  return typeof value === 'string' ? value : undefined;
}

/**
 * What is wrong with `meta` as an envelope: missing required keys first (in the spec's order),
 * then malformed values. Empty when it is a valid envelope. Keys it does not reserve pass.
 */
export function envelopeIssues(meta: JsonObject): EnvelopeIssue[] {
  const issues: EnvelopeIssue[] = REQUIRED_ENVELOPE_KEYS.filter((key) => !Object.hasOwn(meta, key)).map((key) => ({ key, problem: 'missing' }));
  const version = meta[PROTOCOL_VERSION_META_KEY];
  if (version !== undefined && typeof version !== 'string') issues.push(typeIssue(PROTOCOL_VERSION_META_KEY, 'a string', version));
  const capabilities = meta[CLIENT_CAPABILITIES_META_KEY];
  if (capabilities !== undefined) issues.push(...capabilityIssues(capabilities));
  const info = meta[CLIENT_INFO_META_KEY];
  if (info !== undefined) issues.push(...clientInfoIssues(info));
  const level = meta[LOG_LEVEL_META_KEY];
  if (level !== undefined && !(typeof level === 'string' && LOG_LEVELS.includes(level))) {
    issues.push({ key: LOG_LEVEL_META_KEY, problem: `must be one of ${LOG_LEVELS.join(', ')}, got ${describe(level)}` });
  }
  const token = meta.progressToken;
  if (token !== undefined && !(typeof token === 'string' || Number.isSafeInteger(token))) issues.push(typeIssue('progressToken', 'a string or an integer', token));
  return issues;
}

/** The envelope of a request whose `_meta` has no issues (see envelopeIssues). */
export function readEnvelope(meta: JsonObject): RequestEnvelope {
  const info = meta[CLIENT_INFO_META_KEY] as ClientInfo | undefined;
  const level = meta[LOG_LEVEL_META_KEY] as string | undefined;
  return {
    protocolVersion: meta[PROTOCOL_VERSION_META_KEY] as string,
    clientCapabilities: meta[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities,
    ...(info !== undefined ? { clientInfo: info } : {}),
    ...(level !== undefined ? { logLevel: level } : {}),
  };
}

/** The `_meta` a client puts on a modern request (merged into whatever `_meta` it already has). */
export function envelopeMeta(envelope: RequestEnvelope): JsonObject {
  return {
    [PROTOCOL_VERSION_META_KEY]: envelope.protocolVersion,
    ...(envelope.clientInfo !== undefined ? { [CLIENT_INFO_META_KEY]: envelope.clientInfo } : {}),
    [CLIENT_CAPABILITIES_META_KEY]: envelope.clientCapabilities,
    ...(envelope.logLevel !== undefined ? { [LOG_LEVEL_META_KEY]: envelope.logLevel } : {}),
  };
}

/**
 * What each capability's members must be: for a map (`experimental`, `extensions`) every member
 * is an object; for the others only the members the spec names are checked.
 */
const CAPABILITY_MEMBERS: Record<string, 'map' | Record<string, 'object' | 'boolean'>> = {
  experimental: 'map',
  extensions: 'map',
  sampling: { context: 'object', tools: 'object' },
  elicitation: { form: 'object', url: 'object' },
  roots: { listChanged: 'boolean' },
};

function capabilityIssues(capabilities: unknown): EnvelopeIssue[] {
  if (!isPlainObject(capabilities)) return [typeIssue(CLIENT_CAPABILITIES_META_KEY, 'an object', capabilities)];
  const issues: EnvelopeIssue[] = [];
  for (const [name, members] of Object.entries(CAPABILITY_MEMBERS)) {
    const value = capabilities[name];
    const key = `${CLIENT_CAPABILITIES_META_KEY}.${name}`;
    if (value === undefined) continue;
    if (!isPlainObject(value)) {
      issues.push(typeIssue(key, 'an object', value));
      continue;
    }
    for (const [member, inner] of Object.entries(value)) {
      const expected = members === 'map' ? 'object' : Object.hasOwn(members, member) ? members[member] : undefined;
      if (expected === 'object' && !isPlainObject(inner)) issues.push(typeIssue(`${key}.${member}`, 'an object', inner));
      if (expected === 'boolean' && typeof inner !== 'boolean') issues.push(typeIssue(`${key}.${member}`, 'a boolean', inner));
    }
  }
  return issues;
}

function clientInfoIssues(info: unknown): EnvelopeIssue[] {
  if (!isPlainObject(info)) return [typeIssue(CLIENT_INFO_META_KEY, 'an object', info)];
  const issues: EnvelopeIssue[] = [];
  for (const field of ['name', 'version'] as const) if (typeof info[field] !== 'string') issues.push(typeIssue(`${CLIENT_INFO_META_KEY}.${field}`, 'a string', info[field]));
  if (info.title !== undefined && typeof info.title !== 'string') issues.push(typeIssue(`${CLIENT_INFO_META_KEY}.title`, 'a string', info.title));
  return issues;
}

function typeIssue(key: string, expected: string, got: unknown): EnvelopeIssue {
  return { key, problem: `must be ${expected}, got ${describe(got)}` };
}

function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
  return typeof value === 'object' ? 'an object' : `${typeof value} ${String(value)}`;
}
