import type { JsonObject } from '../registry/json.ts';
import type { Store } from '../stores/store.ts';
import { randomHandle } from './base64url.ts';
import type { GrantOwner } from './grant-store.ts';

/** How long a connect link, and then the consent it starts, may take. */
export const CONNECT_LINK_TTL_MS = 10 * 60 * 1000;
export const CONSENT_TTL_MS = 10 * 60 * 1000;

const HANDLE = /^[A-Za-z0-9_-]{43}$/;
const linkKey = (id: string) => `conn-link/${id}`;
const consentKey = (state: string) => `conn-consent/${state}`;

/** A consent under way: what the callback needs and checks, kept by the gateway (never in the browser). */
export interface Consent extends GrantOwner {
  /** PKCE verifier (RFC 7636). */
  verifier: string;
  /** SHA-256 of the browser binding cookie set when the consent started. */
  browser: string;
  redirect_uri: string;
}

/**
 * A connect link: a bearer handle, 256 random bits, bound to the tenant, principal and connection
 * it was made for, valid once and for CONNECT_LINK_TTL_MS. Whoever completes the consent it
 * starts gives that principal its grant, and no one else.
 */
export async function createConnectLink(store: Store, owner: GrantOwner, now: number): Promise<string> {
  const id = randomHandle(32);
  const claimed = await store.claim(linkKey(id), { state: 'link', expires_at: now + CONNECT_LINK_TTL_MS, data: { ...owner } as unknown as JsonObject });
  if (!claimed.claimed) throw new Error('connect link id collision');
  return id;
}

/** Takes the link (it works once): its owner, or undefined when it is unknown, used or expired. */
export async function takeConnectLink(store: Store, id: string): Promise<GrantOwner | undefined> {
  if (!HANDLE.test(id)) return undefined;
  const record = await store.get(linkKey(id));
  if (!record || !(await store.remove(linkKey(id), { state: 'link' }))) return undefined;
  const { tenant, principal, connection } = record.data as unknown as GrantOwner;
  return { tenant, principal, connection };
}

export async function saveConsent(store: Store, state: string, consent: Consent, now: number): Promise<void> {
  const claimed = await store.claim(consentKey(state), { state: 'consent', expires_at: now + CONSENT_TTL_MS, data: { ...consent } as unknown as JsonObject });
  if (!claimed.claimed) throw new Error('consent state collision');
}

/** Takes the consent `state` names (once: a replayed state finds nothing), or undefined. */
export async function takeConsent(store: Store, state: string): Promise<Consent | undefined> {
  if (!HANDLE.test(state)) return undefined;
  const record = await store.get(consentKey(state));
  if (!record || !(await store.remove(consentKey(state), { state: 'consent' }))) return undefined;
  return record.data as unknown as Consent;
}
