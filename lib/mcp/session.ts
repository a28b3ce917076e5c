import { fromBase64url, randomHandle, toBase64url } from '../crypto/base64url.ts';
import { ErrorCode, isPlainObject, jsonRpcError, type JsonRpcId } from '../mcp-wire/json-rpc.ts';
import { isLegacyVersion } from '../mcp-wire/versions.ts';
import { rejectionAnswer, type McpAnswer } from './answer.ts';

/**
 * A legacy (2025-11-25 and older) MCP session without server state: the `Mcp-Session-Id` toolgate
 * answers to `initialize` carries what the client negotiated there (the revision, and the client
 * capabilities toolgate acts on), so a later request of the session tells any gateway instance
 * what its client declared, with no store read (Workers and Lambda keep nothing between requests).
 *
 * `tgsn_<base64url of {"v":revision,"c":[capability flags]}>.<16 random bytes, base64url>`: the
 * random part makes every id unique. It is neither secret nor signed, on purpose: it holds only
 * what the client itself declared in `initialize` and grants nothing (each request still carries
 * its own API key or token, checked as ever), so an id a client forges or alters tells toolgate
 * no more than that client could have declared; at worst its own client is asked something it
 * cannot answer (as a legacy client without a session id is asked everything), and answers with
 * an error. An id toolgate could not have issued (malformed, or
 * naming a revision it does not serve) is unknown: 404, and the client initializes again.
 */

/** What a client declared in the `initialize` that opened its session. */
export interface McpSession {
  /**
   * The revision `initialize` agreed: the session's own, whatever a request's MCP-Protocol-Version
   * header names (a client may keep sending the transport's default, 2025-03-26).
   */
  protocolVersion: string;
  /** The client capabilities toolgate acts on (lib/mcp/relay), in MCP's shape. */
  capabilities: SessionCapabilities;
}

type Declared = Record<string, never>;

/** What an upstream may ask of the client through toolgate: sampling, elicitation by mode, roots. */
export type SessionCapabilities = { sampling?: Declared; elicitation?: { form?: Declared; url?: Declared }; roots?: Declared };

/** The capabilities a session id names, one flag each. */
type Flag = 'sampling' | 'elicitation.form' | 'elicitation.url' | 'roots';

export const SESSION_ID_PREFIX = 'tgsn_';

/** The longest id accepted: what toolgate mints is 62 to 135 characters; the cap leaves room for flags a newer toolgate adds. */
export const MAX_SESSION_ID_CHARS = 512;

/** Visible ASCII only, as the transport requires: base64url, a dot, 22 base64url characters (16 bytes). */
const SESSION_ID = /^tgsn_([A-Za-z0-9_-]+)\.[A-Za-z0-9_-]{22}$/;

const encoder = new TextEncoder();
/** Fatal: bytes that are not UTF-8 are not an id toolgate wrote. */
const decoder = new TextDecoder('utf-8', { fatal: true });

/** The flags of the capabilities an `initialize` declared (already checked: each an object when present). */
function declaredFlags(capabilities: unknown): Flag[] {
  if (!isPlainObject(capabilities)) return [];
  const flags: Flag[] = [];
  if (isPlainObject(capabilities.sampling)) flags.push('sampling');
  const elicitation = capabilities.elicitation;
  if (isPlainObject(elicitation)) {
    // An empty elicitation capability means form mode (the spec's rule, as the relay reads it).
    if (isPlainObject(elicitation.form) || Object.keys(elicitation).length === 0) flags.push('elicitation.form');
    if (isPlainObject(elicitation.url)) flags.push('elicitation.url');
  }
  if (isPlainObject(capabilities.roots)) flags.push('roots');
  return flags;
}

/** The id of the session an `initialize` opens: `protocolVersion` is the revision it agreed, `capabilities` the client's. */
export function mintSessionId(protocolVersion: string, capabilities: unknown): string {
  const content = encoder.encode(JSON.stringify({ v: protocolVersion, c: declaredFlags(capabilities) }));
  return `${SESSION_ID_PREFIX}${toBase64url(content)}.${randomHandle(16)}`;
}

/** The session an id names; undefined when toolgate could not have issued it (malformed, too long, an unknown revision). */
export function readSessionId(id: string): McpSession | undefined {
  const content = id.length <= MAX_SESSION_ID_CHARS ? SESSION_ID.exec(id)?.[1] : undefined;
  const bytes = content === undefined ? undefined : fromBase64url(content);
  if (!bytes) return undefined;
  let read: unknown;
  try {
    read = JSON.parse(decoder.decode(bytes));
  } catch {
    return undefined;
  }
  if (!isPlainObject(read) || typeof read.v !== 'string' || !isLegacyVersion(read.v) || !Array.isArray(read.c)) return undefined;
  if (!read.c.every((flag) => typeof flag === 'string')) return undefined;
  return { protocolVersion: read.v, capabilities: capabilitiesOf(read.c) };
}

/** The capabilities `flags` name (a flag toolgate does not know is ignored: an id from a newer toolgate stays usable). */
function capabilitiesOf(flags: string[]): SessionCapabilities {
  const has = (flag: Flag) => flags.includes(flag);
  const elicitation = { ...(has('elicitation.form') ? { form: {} } : {}), ...(has('elicitation.url') ? { url: {} } : {}) };
  return {
    ...(has('sampling') ? { sampling: {} } : {}),
    ...(Object.keys(elicitation).length > 0 ? { elicitation } : {}),
    ...(has('roots') ? { roots: {} } : {}),
  };
}

/**
 * A request naming a session toolgate could not have issued: 404, as the transport says of an
 * unknown session, which tells a client to initialize again (the official SDK's code, -32001).
 */
export function sessionNotFound(id: JsonRpcId | null): McpAnswer {
  const message = 'Session not found: this Mcp-Session-Id was not issued by toolgate (or was altered); send initialize again, without it, for a new one';
  return rejectionAnswer(404, jsonRpcError(ErrorCode.SessionNotFound, message), id);
}
