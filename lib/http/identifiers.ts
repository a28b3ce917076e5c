import { KEY_ID_PATTERN } from '../governance/api-key-record.ts';

/** The shapes of identifiers the API accepts, each with the words a 400 uses to describe it. */
export interface IdentifierShape {
  pattern: RegExp;
  describe: string;
}

export const THREAD_ID: IdentifierShape = { pattern: /^[\w.:@-]{1,200}$/, describe: '1-200 characters of letters, digits and _ . : @ -' };
/** Call ids come from models and providers: any text, bounded (it becomes part of a store key). */
export const CALL_ID: IdentifierShape = { pattern: /^[^\u0000-\u001f]{1,200}$/u, describe: '1-200 characters, no control characters' };
export const APPROVAL_ID: IdentifierShape = { pattern: /^apr_[0-9a-f]{24}$/, describe: '"apr_" and 24 hex digits, as the gateway gave it' };
export const MANIFEST_VERSION: IdentifierShape = { pattern: /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, describe: '1-64 letters, digits and . _ -, starting with a letter or digit' };
export const TOOL_NAME: IdentifierShape = { pattern: /^[a-zA-Z0-9_-]{1,64}$/, describe: '1-64 letters, digits, _ and -' };
/** Principals and scopes of API keys. */
export const KEY_NAME: IdentifierShape = { pattern: /^[\w.@:-]{1,100}$/, describe: '1-100 letters, digits and _ . @ : -' };
/** API key ids, as the gateway gives them (never the key itself). */
export const KEY_ID: IdentifierShape = { pattern: KEY_ID_PATTERN, describe: '"key_" and 16 hex digits, as `toolgate keys list` shows them' };
