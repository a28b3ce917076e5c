/**
 * MCP protocol revisions and their two eras. Legacy revisions (2025-11-25 and earlier) are
 * negotiated once by `initialize`; modern ones (2026-07-28 and later) are named on every request
 * in its `_meta` envelope and offered by `server/discover`. Revision names are ISO dates, so a
 * string comparison orders them; an operation of one era only ever consults that era's list.
 */

/** Legacy revisions, newest first: the ones `initialize` accepts (as the official SDK v1 does). */
export const LEGACY_VERSIONS: readonly string[] = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05', '2024-10-07'];

/** What `initialize` answers when the client's revision is not one of ours. */
export const LATEST_LEGACY_VERSION = '2025-11-25';

/** The revision an HTTP request without an MCP-Protocol-Version header speaks (the transport spec's rule). */
export const DEFAULT_LEGACY_VERSION = '2025-03-26';

/** The first revision of the modern era. */
export const FIRST_MODERN_VERSION = '2026-07-28';

/** Modern revisions served, newest first: what `server/discover` offers. */
export const MODERN_VERSIONS: readonly string[] = [FIRST_MODERN_VERSION];

/** Every revision served, newest first: what an unsupported-version error lists. */
export const SUPPORTED_VERSIONS: readonly string[] = [...MODERN_VERSIONS, ...LEGACY_VERSIONS];

/** Whether a revision name belongs to the modern era (compared as the SDKs do: by its date string). */
export function isModernVersion(version: string): boolean {
  return version >= FIRST_MODERN_VERSION;
}

export function isLegacyVersion(version: string): boolean {
  return LEGACY_VERSIONS.includes(version);
}

/** The revision `initialize` agrees to: the client's own when it is a legacy one served here, else the latest. */
export function negotiateLegacyVersion(requested: string): string {
  return isLegacyVersion(requested) ? requested : LATEST_LEGACY_VERSION;
}
