import { fromBase64url, toBase64url } from '../crypto/base64url.ts';

export const CONNECTION_KEYS_VARIABLE = 'TOOLGATE_CONNECTION_KEYS';

const KID = /^[A-Za-z0-9_-]{1,32}$/;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** TOOLGATE_CONNECTION_KEYS cannot be read: a configuration error, said with what to write. */
export class KeyringError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'KeyringError';
  }
}

/** A sealed value could not be opened: another key, another owner (AAD), or tampered with. */
export class SealError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SealError';
  }
}

interface KeyEntry {
  kid: string;
  key: () => Promise<CryptoKey>;
}

/**
 * The operator's keys for grants at rest (AES-256-GCM through WebCrypto), from
 * TOOLGATE_CONNECTION_KEYS = "kid:<32 bytes base64url>,older-kid:<…>": the first key seals, every
 * key opens, so a key is rotated by putting a new one first and removing the old one once nothing
 * sealed under it is left. A sealed value is `v1.<kid>.<iv>.<ciphertext+tag>`, bound by AAD to
 * its owner (tenant/principal/connection): copied to another record it does not open.
 */
export class Keyring {
  readonly #entries: KeyEntry[];

  private constructor(entries: KeyEntry[]) {
    this.#entries = entries;
  }

  static parse(value: string): Keyring {
    const entries = value.split(',').map((part) => part.trim()).filter((part) => part !== '').map(parseEntry);
    if (entries.length === 0) throw new KeyringError(`${CONNECTION_KEYS_VARIABLE} names no key: write "kid:<32 random bytes, base64url>"`);
    const kids = new Set(entries.map((entry) => entry.kid));
    if (kids.size !== entries.length) throw new KeyringError(`${CONNECTION_KEYS_VARIABLE} names a key id twice`);
    return new Keyring(entries);
  }

  /** The keyring of `env`, or undefined when the operator set none (connections then cannot hold grants). */
  static fromEnv(env: Readonly<Record<string, string | undefined>>): Keyring | undefined {
    const value = env[CONNECTION_KEYS_VARIABLE]?.trim();
    return value ? Keyring.parse(value) : undefined;
  }

  /** The key id new values are sealed under. */
  get currentKid(): string {
    return this.#entries[0]!.kid;
  }

  async seal(owner: string, plaintext: string): Promise<string> {
    const entry = this.#entries[0]!;
    const iv = crypto.getRandomValues(new Uint8Array(12));
    const sealed = await crypto.subtle.encrypt({ name: 'AES-GCM', iv, additionalData: encoder.encode(owner) }, await entry.key(), encoder.encode(plaintext));
    return `v1.${entry.kid}.${toBase64url(iv)}.${toBase64url(sealed)}`;
  }

  /** The plaintext, and whether it was sealed under an older key (re-seal it on the next write). */
  async open(owner: string, sealed: string): Promise<{ plaintext: string; stale: boolean }> {
    const [version, kid, iv, body, extra] = sealed.split('.');
    const ivBytes = fromBase64url(iv ?? '');
    const bodyBytes = fromBase64url(body ?? '');
    if (version !== 'v1' || extra !== undefined || !ivBytes || ivBytes.length !== 12 || !bodyBytes) throw new SealError('not a sealed grant (v1.<kid>.<iv>.<ciphertext>)');
    const entry = this.#entries.find((candidate) => candidate.kid === kid);
    if (!entry) throw new SealError(`sealed under key "${kid}", which ${CONNECTION_KEYS_VARIABLE} no longer holds`);
    try {
      const plain = await crypto.subtle.decrypt({ name: 'AES-GCM', iv: ivBytes, additionalData: encoder.encode(owner) }, await entry.key(), bodyBytes);
      return { plaintext: decoder.decode(plain), stale: entry !== this.#entries[0] };
    } catch {
      throw new SealError('the sealed grant does not open: it belongs to another tenant, principal or connection, or was altered');
    }
  }
}

function parseEntry(part: string): KeyEntry {
  const colon = part.indexOf(':');
  const kid = part.slice(0, colon);
  const raw = fromBase64url(part.slice(colon + 1));
  if (colon < 0 || !KID.test(kid)) throw new KeyringError(`${CONNECTION_KEYS_VARIABLE}: each key is "kid:<base64url>", with a kid of letters, digits, - and _ (at most 32)`);
  if (!raw || raw.length !== 32) throw new KeyringError(`${CONNECTION_KEYS_VARIABLE}: key "${kid}" is not 32 bytes of base64url (make one with: openssl rand 32 | basenc --base64url)`);
  // Imported on first use (Workers build the gateway at module scope), non-extractable: nothing in the process reads it back out of WebCrypto.
  let key: Promise<CryptoKey> | undefined;
  return { kid, key: () => (key ??= crypto.subtle.importKey('raw', raw, 'AES-GCM', false, ['encrypt', 'decrypt'])) };
}
