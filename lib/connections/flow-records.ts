import type { JsonObject } from '../registry/json.ts';
import type { Store } from '../stores/store.ts';
import { randomHandle } from '../crypto/base64url.ts';
import { storedProof, type GrantProof } from './grant-proof.ts';
import type { GrantOwner } from './grant-store.ts';

/** How long a connect link, and then the consent it starts, may take. */
export const CONNECT_LINK_TTL_MS = 10 * 60 * 1000;
export const CONSENT_TTL_MS = 10 * 60 * 1000;

const HANDLE = /^[A-Za-z0-9_-]{43}$/;
const linkKey = (id: string) => `conn-link/${id}`;
const consentKey = (state: string) => `conn-consent/${state}`;

/** Whom a connect link is for: the principal, and the proof it called with, which the grant it leads to will require. */
export interface ConnectTarget extends GrantOwner {
  proof: GrantProof;
}

/** A consent under way: what the callback needs and checks, kept by the gateway (never in the browser). */
export interface Consent extends ConnectTarget {
  /** PKCE verifier (RFC 7636). */
  verifier: string;
  /** SHA-256 of the browser binding cookie set when the consent started. */
  browser: string;
  redirect_uri: string;
}

/**
 * A connect link: a bearer handle, 256 random bits, bound to the tenant, principal and connection
 * it was made for and the proof that principal called with, valid once and for
 * CONNECT_LINK_TTL_MS. Whoever completes the consent it starts gives that principal, proved that
 * way, its grant, and no one else.
 */
export async function createConnectLink(store: Store, target: ConnectTarget, now: number): Promise<string> {
  const id = randomHandle(32);
  const { tenant, principal, connection, proof } = target;
  const claimed = await store.claim(linkKey(id), { state: 'link', expires_at: now + CONNECT_LINK_TTL_MS, data: { tenant, principal, connection, proof } as unknown as JsonObject });
  if (!claimed.claimed) throw new Error('connect link id collision');
  return id;
}

/** Takes the link (it works once): whom it is for, or undefined when it is unknown, used, expired or names no proof. */
export async function takeConnectLink(store: Store, id: string): Promise<ConnectTarget | undefined> {
  if (!HANDLE.test(id)) return undefined;
  const record = await store.get(linkKey(id));
  if (!record || !(await store.remove(linkKey(id), { state: 'link' }))) return undefined;
  const { tenant, principal, connection, proof } = record.data as unknown as ConnectTarget;
  const proved = storedProof(proof);
  return proved ? { tenant, principal, connection, proof: proved } : undefined;
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
