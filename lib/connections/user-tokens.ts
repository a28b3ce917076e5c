import type { AuditRecorder } from '../audit/recorder.ts';
import type { ResolveSecret } from '../crypto/secrets.ts';
import type { Fetch } from '../egress/fetch.ts';
import { ToolError } from '../registry/errors.ts';
import type { ToolExecutionContext } from '../registry/executor.ts';
import type { ConnectionSettings, Manifest } from '../registry/manifest/manifest.ts';
import type { Store } from '../stores/store.ts';
import { auditConnection } from './connection-audit.ts';
import type { ConnectionAccess } from './connection-access.ts';
import { connectUrl } from './connect-paths.ts';
import { createConnectLink } from './flow-records.ts';
import { describeProof, mayReplace, sameProof, type GrantProof } from './grant-proof.ts';
import { GrantStore, type Grant, type GrantOwner } from './grant-store.ts';
import type { Keyring } from './keyring.ts';
import { oauthClientOf, OAuthError, tokenRequest } from './oauth-client.ts';
import { providerBinding } from './provider-binding.ts';
import { providerEndpoints } from './provider-metadata.ts';
import { markUsed } from './first-use.ts';
import { exchangedToken } from './token-exchange.ts';

/** A token this close to its expiry is refreshed before it is sent. */
const REFRESH_MARGIN_MS = 60_000;
/** How long one refresh may hold the lease; a caller that lost it waits at most this long for the winner. */
const REFRESH_LEASE_MS = 15_000;
const REFRESH_POLL_MS = 100;

/** What a tenant's connections run on. */
export interface UserTokenServices {
  store: Store;
  /** TOOLGATE_CONNECTION_KEYS: without them no grant is held (token exchange needs none). */
  keys?: Keyring;
  /** The tenant's secrets (its grants), for client secrets. */
  secrets: ResolveSecret;
  fetch: Fetch;
  audit?: AuditRecorder;
  /** TOOLGATE_PUBLIC_URL, when pinned: connect links point there. */
  publicOrigin?: string;
  now?: () => number;
  log?: (event: string, fields: Record<string, unknown>) => void;
}

/**
 * The calling principal's tokens of a tenant's connections: a stored grant (refreshed shortly
 * before it expires, once however many calls need it at the same time), or for a token_exchange
 * connection the caller's own sign-in token exchanged. A principal without a grant is asked to
 * connect: `authorization_required` with a single-use link bound to it.
 */
export class UserTokens implements ConnectionAccess {
  readonly #manifest: Manifest;
  readonly #connections: Readonly<Record<string, ConnectionSettings>>;
  readonly #services: UserTokenServices;
  readonly #grants: GrantStore | undefined;
  readonly #now: () => number;

  constructor(manifest: Manifest, services: UserTokenServices) {
    this.#manifest = manifest;
    this.#connections = manifest.connections ?? {};
    this.#services = services;
    this.#grants = services.keys ? new GrantStore(services.store, services.keys) : undefined;
    this.#now = services.now ?? Date.now;
  }

  async accessToken(connection: string, context: ToolExecutionContext): Promise<string> {
    const settings = Object.hasOwn(this.#connections, connection) ? this.#connections[connection] : undefined;
    if (!settings) throw new ToolError('error', `connection "${connection}" is not declared in the tenant's manifest`, { connection });
    const owner = { tenant: this.#manifest.tenant, principal: context.principal, connection };
    try {
      if (settings.grant === 'token_exchange') {
        const token = await exchangedToken(owner, settings, context.connection_caller?.subject_token, this.#exchangeServices());
        context.connections_used?.push({ connection });
        if (settings.approval_on_first_use) await markUsed(this.#services.store, owner);
        return token;
      }
      const grant = await this.#grantOfCaller(owner, context);
      const used = expiresSoon(grant, this.#now()) ? await this.#refreshed(owner, settings, grant, context) : { token: grant.tokens.access_token, grant_id: grant.grant_id };
      context.connections_used?.push({ connection, grant_id: used.grant_id });
      if (settings.approval_on_first_use) await markUsed(this.#services.store, owner);
      return used.token;
    } catch (error) {
      if (error instanceof ToolError) throw error;
      throw unreachable(connection, error);
    }
  }

  /**
   * The owner's grant, if the caller proves who it is the way the grant's owner did when they
   * consented: a key named after a signed-in user is not that user here (grant-proof.ts). A grant
   * the caller cannot use is answered as none (`authorization_required`, a link bound to the
   * caller's own proof), except that a key is refused outright where a signed-in user's grant
   * stands, since its consent could not replace that grant.
   */
  async #grantOfCaller(owner: GrantOwner, context: ToolExecutionContext): Promise<Grant> {
    const proof = context.connection_caller?.proof;
    if (!proof) throw new ToolError('forbidden', `connection "${owner.connection}" acts as the calling user, and this call carries no proof of who that is (neither a key nor a sign-in token with a \`sub\` claim naming the user at the identity provider). Nothing was sent.`, { connection: owner.connection });
    const grant = await this.#grantStore(owner.connection).load(owner, this.#binding(owner.connection));
    if (grant && sameProof(grant.proof, proof)) return grant;
    if (grant && !mayReplace(grant.proof, proof)) {
      throw new ToolError(
        'forbidden',
        `"${owner.connection}" of ${owner.principal} was connected by ${describeProof(grant.proof)}; this call was made with ${describeProof(proof)}, which cannot use or replace that grant. Call with ${owner.principal}'s own sign-in token. Nothing was sent.`,
        { connection: owner.connection },
      );
    }
    throw await this.#askToConnect(owner, context, proof);
  }

  /** What the connection's grants are bound to in this manifest (provider-binding.ts). */
  #binding(connection: string): string {
    return providerBinding(this.#manifest, connection);
  }

  /** The grants, or `unavailable` when the operator set no keys to hold them. */
  #grantStore(connection: string): GrantStore {
    if (this.#grants) return this.#grants;
    throw new ToolError('unavailable', `connection "${connection}" cannot be used here: this gateway holds no connection grants (the operator sets TOOLGATE_CONNECTION_KEYS). Nothing was sent.`, { connection });
  }

  #exchangeServices() {
    return { fetch: this.#services.fetch, secrets: this.#services.secrets, now: this.#now };
  }

  /** `authorization_required`, with a fresh connect link bound to this principal and the proof it called with. */
  async #askToConnect(owner: GrantOwner, context: ToolExecutionContext, proof: GrantProof): Promise<ToolError> {
    const origin = this.#services.publicOrigin ?? context.connection_caller?.origin;
    if (!origin) return new ToolError('unavailable', `connection "${owner.connection}" needs the user to connect, but this gateway does not know its public URL: the operator sets TOOLGATE_PUBLIC_URL. Nothing was sent.`, { connection: owner.connection });
    const link = await createConnectLink(this.#services.store, { ...owner, proof }, this.#now());
    const url = connectUrl(origin, owner, link);
    return new ToolError(
      'authorization_required',
      `This tool acts as you at "${owner.connection}", which you have not connected yet. Open ${url} in a browser, sign in and allow access, then send the call again. The link works once, for 10 minutes. Nothing was sent.`,
      { authorization_url: url, connection: owner.connection },
    );
  }

  /**
   * A new access token for a grant about to expire. Providers rotate refresh tokens and revoke the
   * whole grant when one is used twice, so only one refresh runs per grant (a store lease): the
   * others wait for it and read the grant it stored.
   */
  async #refreshed(owner: GrantOwner, settings: ConnectionSettings, grant: Grant, context: ToolExecutionContext): Promise<{ token: string; grant_id: string }> {
    const store = this.#services.store;
    const lease = refreshLeaseKey(owner);
    const now = this.#now();
    const won = await store.claim(lease, { state: 'refreshing', owner: grant.grant_id, claimable_after: now + REFRESH_LEASE_MS, expires_at: now + REFRESH_LEASE_MS, data: {} });
    if (!won.claimed) return this.#awaitRefresh(owner, settings, grant, context);
    try {
      if (!grant.tokens.refresh_token) throw await this.#askToConnect(owner, context, grant.proof);
      const endpoints = await providerEndpoints(settings, this.#services.fetch, now);
      let answer;
      try {
        answer = await tokenRequest(this.#services.fetch, endpoints.token_endpoint, oauthClientOf(settings, this.#services.secrets), { grant_type: 'refresh_token', refresh_token: grant.tokens.refresh_token }, context.signal);
      } catch (error) {
        if (!(error instanceof OAuthError) || !error.grantGone) throw error;
        await this.#grantStore(owner.connection).remove(owner, grant.grant_id);
        await auditConnection(this.#services.audit, 'connection.refresh_failed', owner, 'toolgate', { error: error.error, grant_id: grant.grant_id, removed: true });
        throw await this.#askToConnect(owner, context, grant.proof);
      }
      // A provider that does not rotate (Google) answers no refresh token: the old one stays good.
      const tokens = { access_token: answer.access_token, refresh_token: answer.refresh_token ?? grant.tokens.refresh_token };
      const expires = answer.expires_in ? { token_expires_at: this.#now() + answer.expires_in * 1000 } : {};
      const saved = await this.#grantStore(owner.connection).save(owner, this.#binding(owner.connection), grant.proof, tokens, { ...expires, scope: answer.scope ?? grant.scope }, this.#now());
      return { token: tokens.access_token, grant_id: saved.grant_id };
    } finally {
      await store.remove(lease, { state: 'refreshing', owner: grant.grant_id });
    }
  }

  /** Another call refreshes this grant: wait for the grant it stores (never refresh with the token read before); the lease gone and no new grant means that refresh failed. */
  async #awaitRefresh(owner: GrantOwner, settings: ConnectionSettings, before: Grant, context: ToolExecutionContext): Promise<{ token: string; grant_id: string }> {
    const deadline = this.#now() + REFRESH_LEASE_MS;
    while (this.#now() < deadline && !context.signal.aborted) {
      await new Promise((resolve) => setTimeout(resolve, REFRESH_POLL_MS));
      const grant = await this.#grantStore(owner.connection).load(owner, this.#binding(owner.connection));
      if (!grant || !sameProof(grant.proof, before.proof)) throw await this.#askToConnect(owner, context, before.proof);
      if (grant.grant_id !== before.grant_id) return { token: grant.tokens.access_token, grant_id: grant.grant_id };
      if (!(await this.#services.store.get(refreshLeaseKey(owner)))) break;
    }
    throw new ToolError('unavailable', `connection "${owner.connection}": another call was refreshing the token and has not stored a new one; try again. Nothing was sent.`, { connection: owner.connection });
  }
}

const refreshLeaseKey = (owner: GrantOwner) => `conn-refresh/${encodeURIComponent(owner.tenant)}/${encodeURIComponent(owner.principal)}/${encodeURIComponent(owner.connection)}`;

function expiresSoon(grant: Grant, now: number): boolean {
  return grant.token_expires_at !== undefined && grant.token_expires_at - REFRESH_MARGIN_MS <= now;
}

/** The provider could not be asked, or answered something else than a token: nothing was sent to the tool. */
function unreachable(connection: string, error: unknown): ToolError {
  const reason = error instanceof OAuthError ? `the provider answered ${error.message}` : error instanceof Error ? error.message : String(error);
  return new ToolError('unavailable', `connection "${connection}" could not get a token: ${reason}. Nothing was sent.`, { connection });
}
