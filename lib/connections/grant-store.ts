import type { JsonObject } from '../registry/json.ts';
import { checkPageLimit } from '../stores/page-limit.ts';
import type { Store } from '../stores/store.ts';
import { storedProof, type GrantProof } from './grant-proof.ts';
import type { Keyring } from './keyring.ts';
import { noteSignedIn } from './signed-in-principals.ts';

/** Whose grant: one end user (principal) of one tenant, for one of the tenant's connections. */
export interface GrantOwner {
  tenant: string;
  principal: string;
  connection: string;
}

/** The tokens a provider issued for one owner: held sealed, opened only to send upstream. */
export interface GrantTokens {
  access_token: string;
  refresh_token?: string;
}

/** What may be shown about a grant (console, CLI, audit): never a token. */
export interface GrantInfo extends GrantOwner {
  granted_at: string;
  /** When the access token expires (ms since epoch), if the provider said. */
  token_expires_at?: number;
  /** Whether the gateway can refresh it without the user. */
  refreshable: boolean;
  scope?: string;
  /** A short hash naming this grant (changes with every new token): audit says which grant a call used. */
  grant_id: string;
  /** The key it is sealed under. */
  kid: string;
  /** How its owner proved who they were when they consented (grant-proof.ts); absent on grants stored before proofs, which no caller uses. */
  proof?: GrantProof;
}

export interface Grant extends GrantInfo {
  proof: GrantProof;
  tokens: GrantTokens;
  /** Sealed under an older key: re-sealed on the next write. */
  stale: boolean;
}

const part = encodeURIComponent;
export const grantKey = (owner: GrantOwner) => `conn-grant/${part(owner.tenant)}/${part(owner.principal)}/${part(owner.connection)}`;
const grantIndex = (tenant: string) => `conn-grants/${part(tenant)}`;
const indexMember = (owner: GrantOwner) => `${part(owner.principal)}/${part(owner.connection)}`;
/**
 * AAD of a sealed grant: the record it belongs to, so a copy under another owner does not open;
 * and the provider it came from (provider-binding.ts), so a manifest that re-points the connection
 * elsewhere finds no grant: its tokens never go to another token endpoint or tool; and the proof
 * its owner consented with, so a record whose proof was changed does not open either.
 */
const sealOwner = (owner: GrantOwner, provider: string, proof: GrantProof) => `${part(owner.tenant)}/${part(owner.principal)}/${part(owner.connection)}\n${provider}\n${JSON.stringify(proof)}`;

const STATE = 'granted';

/**
 * Connection grants per tenant + principal + connection, on any Store (records and an index per
 * tenant), the tokens sealed with the operator's keyring (AES-GCM). Only `load` opens them, for
 * the call that sends one upstream; listing shows who holds what, never the tokens.
 */
export class GrantStore {
  readonly #store: Store;
  readonly #keys: Keyring;

  constructor(store: Store, keys: Keyring) {
    this.#store = store;
    this.#keys = keys;
  }

  async save(owner: GrantOwner, provider: string, proof: GrantProof, tokens: GrantTokens, about: { token_expires_at?: number; scope?: string }, now: number): Promise<GrantInfo> {
    const sealed = await this.#keys.seal(sealOwner(owner, provider, proof), JSON.stringify(tokens));
    const info: GrantInfo = {
      ...owner,
      granted_at: new Date(now).toISOString(),
      ...(about.token_expires_at !== undefined ? { token_expires_at: about.token_expires_at } : {}),
      refreshable: tokens.refresh_token !== undefined,
      ...(about.scope ? { scope: about.scope } : {}),
      grant_id: sealed.slice(-16),
      kid: this.#keys.currentKid,
      proof,
    };
    if (proof.kind === 'token') await noteSignedIn(this.#store, owner.tenant, owner.principal);
    await this.#store.put(grantKey(owner), { state: STATE, owner: info.grant_id, expires_at: 0, data: { ...info, sealed } as unknown as JsonObject });
    await this.#store.addToIndex(grantIndex(owner.tenant), indexMember(owner), now);
    return info;
  }

  /**
   * The grant with its tokens, or undefined; one that no longer opens (key removed, record moved,
   * connection re-pointed, proof changed) counts as none, and so does one stored before grants
   * recorded their owner's proof: nothing shows which credential made it, so its owner connects again.
   */
  async load(owner: GrantOwner, provider: string): Promise<Grant | undefined> {
    const record = await this.#store.get(grantKey(owner));
    const data = record?.data as (GrantInfo & { sealed?: unknown }) | undefined;
    const proof = storedProof(data?.proof);
    if (!data || typeof data.sealed !== 'string' || !proof) return undefined;
    try {
      const opened = await this.#keys.open(sealOwner(owner, provider, proof), data.sealed);
      const tokens = JSON.parse(opened.plaintext) as GrantTokens;
      return { ...infoOf(data), ...owner, proof, tokens, stale: opened.stale };
    } catch {
      return undefined;
    }
  }

  /** What is shown about the owner's grant, without opening it. */
  async info(owner: GrantOwner): Promise<GrantInfo | undefined> {
    const record = await this.#store.get(grantKey(owner));
    return record ? { ...infoOf(record.data as unknown as GrantInfo), ...owner } : undefined;
  }

  /**
   * Deletes the grant; true when there was one. With `grant_id`, only that grant: a refresh that
   * failed does not delete the one another isolate (or a new consent) stored meanwhile.
   */
  async remove(owner: GrantOwner, grant_id?: string): Promise<boolean> {
    const removed = await this.#store.remove(grantKey(owner), { state: STATE, ...(grant_id ? { owner: grant_id } : {}) });
    if (removed) await this.#store.removeFromIndex(grantIndex(owner.tenant), indexMember(owner));
    return removed;
  }

  /** The tenant's grants (optionally one principal's), oldest first, without tokens. */
  async list(tenant: string, filter: { principal?: string; limit?: number } = {}): Promise<GrantInfo[]> {
    const limit = filter.limit ?? 500;
    checkPageLimit(limit, 'connection grants');
    const members = await this.#store.listIndex(grantIndex(tenant), { limit });
    const owners = members.flatMap(({ member }) => {
      const [principal, connection] = member.split('/').map(decodeURIComponent);
      return principal !== undefined && connection !== undefined && (filter.principal === undefined || filter.principal === principal) ? [{ tenant, principal, connection }] : [];
    });
    const infos = await Promise.all(owners.map((owner) => this.info(owner)));
    return infos.filter((info): info is GrantInfo => info !== undefined);
  }
}

function infoOf(data: GrantInfo): GrantInfo {
  const { tenant, principal, connection, granted_at, token_expires_at, refreshable, scope, grant_id, kid } = data;
  const proof = storedProof(data.proof);
  return { tenant, principal, connection, granted_at, ...(token_expires_at !== undefined ? { token_expires_at } : {}), refreshable, ...(scope ? { scope } : {}), grant_id, kid, ...(proof ? { proof } : {}) };
}
