import type { Principal } from '../governance/api-keys.ts';

/**
 * How a principal proved who it was: signed in with a token of the tenant's identity provider
 * (its issuer and the token's subject), or presented an API key. A grant records the proof of
 * the consent that made it, and only a caller with the same proof uses it: a principal *name* is
 * not enough, since a tenant admin can mint a key of any name (docs/identity.md: for approvals
 * and audit such a key and the signed-in user are one principal; for the user's tokens they are not).
 */
export type GrantProof = TokenProof | { kind: 'key' };

/**
 * A sign-in: the token's issuer and subject, and what the gateway checked it against, all set by
 * the tenant's manifest: its audience and where its keys came from (`jwks_uri`; absent: the
 * issuer's discovery document, which only the issuer serves). The issuer string alone would not
 * do: a tenant admin who keeps it and points `jwks_uri` at keys of its own signs tokens with any
 * `iss` and `sub`; one who moves `audience` to an app of its own accepts the user's tokens for that app.
 */
export interface TokenProof {
  kind: 'token';
  issuer: string;
  subject: string;
  audience: string;
  jwks_uri?: string;
}

/** One field order for every token proof: a grant's AAD is its proof written out (grant-store.ts). */
function tokenProof(issuer: string, subject: string, audience: string, jwks_uri: string | undefined): TokenProof {
  return { kind: 'token', issuer, subject, audience, ...(jwks_uri !== undefined ? { jwks_uri } : {}) };
}

/** Every key's proof (one shared object: a request of a key builds none). */
const KEY_PROOF: GrantProof = Object.freeze({ kind: 'key' });

/**
 * The proof a principal's credential gives. Every key counts as one proof: keys are made by the
 * tenant admin (or the operator), who can already mint or rotate a key of any key principal's
 * name, so telling their lineages apart would protect nothing from the one who could cross them.
 */
export function proofOf(principal: Pick<Principal, 'credential' | 'claims'>): GrantProof | undefined {
  const credential = principal.credential;
  if (credential?.kind === 'key') return KEY_PROOF;
  if (credential?.kind !== 'token') return undefined;
  // Only the issuer's own subject identifier names the person: a token without one proves no one
  // (its principal name may come from any claim the admin picks, one its holder can set).
  const sub = principal.claims?.sub;
  if (typeof sub !== 'string' || sub === '') return undefined;
  return tokenProof(credential.issuer, sub, credential.audience, credential.jwks_uri);
}

export function sameProof(a: GrantProof, b: GrantProof): boolean {
  if (a.kind === 'key' || b.kind === 'key') return a.kind === b.kind;
  return a.issuer === b.issuer && a.subject === b.subject && a.audience === b.audience && a.jwks_uri === b.jwks_uri;
}

/**
 * Whether a consent proved by `incoming` may replace the grant `stored` (undefined: none, or one
 * stored before grants recorded their proof). A key never replaces a signed-in user's grant: its
 * holder would otherwise swap the user's upstream account for one of its own under the user's name.
 * A token replaces any other grant: the user signed in, which is the stronger proof.
 */
export function mayReplace(stored: GrantProof | undefined, incoming: GrantProof): boolean {
  return !(stored?.kind === 'token' && incoming.kind === 'key');
}

/** The proof as people read it (messages, the console), never secret. */
export function describeProof(proof: GrantProof): string {
  return proof.kind === 'key' ? 'an API key' : `a sign-in through ${proof.issuer}`;
}

/** A proof read back from a stored record, or undefined when it is not one (a grant from before proofs). */
export function storedProof(value: unknown): GrantProof | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const proof = value as { kind?: unknown; issuer?: unknown; subject?: unknown; audience?: unknown; jwks_uri?: unknown };
  if (proof.kind === 'key') return KEY_PROOF;
  if (proof.kind !== 'token' || typeof proof.issuer !== 'string' || typeof proof.subject !== 'string' || typeof proof.audience !== 'string') return undefined;
  if (proof.jwks_uri !== undefined && typeof proof.jwks_uri !== 'string') return undefined;
  return tokenProof(proof.issuer, proof.subject, proof.audience, proof.jwks_uri);
}
