/**
 * The MCP vocabulary toolgate's upstream client speaks: revisions, reserved `_meta` keys and the
 * capabilities it declares. (The server face has its own copy in lib/mcp-wire; they merge later.)
 */

/** Revisions with the stateless core: no initialize, no session, a `_meta` envelope on every request. */
export const MODERN_VERSIONS: readonly string[] = ['2026-07-28'];
export const MODERN_VERSION = '2026-07-28';

/** Revisions that open a session with `initialize`, newest first: the client offers the first. */
export const LEGACY_VERSIONS: readonly string[] = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'];
export const LATEST_LEGACY_VERSION = '2025-11-25';

export const isModernVersion = (version: string | undefined): boolean => version !== undefined && MODERN_VERSIONS.includes(version);

/** The per-request envelope of the modern revisions, and other keys the spec reserves in `_meta`. */
export const META_PROTOCOL_VERSION = 'io.modelcontextprotocol/protocolVersion';
export const META_CLIENT_INFO = 'io.modelcontextprotocol/clientInfo';
export const META_CLIENT_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';
export const META_LOG_LEVEL = 'io.modelcontextprotocol/logLevel';

/** How toolgate introduces itself upstream. */
export const CLIENT_INFO = { name: 'toolgate', version: '0.1.0' } as const;

/**
 * What an upstream may ask of a client during a call. toolgate declares them only for tools that
 * an upstream lists only to clients that have them (the import finds out); it answers such a
 * request at once (or relays it when the caller's client can answer).
 */
export const ASKING_CAPABILITIES = { sampling: {}, elicitation: { form: {}, url: {} }, roots: {} } as const;
