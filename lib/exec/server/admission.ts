import { DEFAULT_TOLERANCE_SECONDS } from '../../crypto/signed-request.ts';
import { NonceRegistry } from './nonce-registry.ts';
import { REFUSAL_CODES, TENANT_ID_PATTERN, type RpcRequestIdentity } from '../rpc-protocol.ts';

/**
 * Nonces held at once (about 100 bytes each). Each is kept for the signature window (300 s after
 * its timestamp), so this allows a sustained 800 requests a second, far above what coding tools
 * send; past it requests are refused (503), never forgotten early. Each of the N tenants served
 * has its own part (floor(max / N)): one tenant's flood of requests never refuses the others'.
 */
export const DEFAULT_MAX_NONCES = 500_000;

/**
 * How far ahead of this server's clock a request's timestamp may be. The signature check allows
 * 300 s either way, but a timestamp ahead of the clock would also pass the "signed before the
 * server started" check after a restart; keeping it near the clock keeps that replay window
 * this short.
 */
export const MAX_SECONDS_AHEAD = 30;

/** Why a correctly signed request must not run; nothing has run when this is answered. */
export interface Refusal {
  status: number;
  code: string;
  message: string;
}

/**
 * What a correctly signed request must also pass before it runs: it was signed for a tenant this
 * exec-server serves, after the server started and not ahead of its clock, and its nonce was
 * never seen (each signed request runs at most once).
 */
export class RequestAdmission {
  readonly #tenants: ReadonlySet<string>;
  /** Requests signed before this second are refused: a restart must not reopen the replay window. */
  readonly #startedSeconds = Math.floor(Date.now() / 1000);
  /** Each tenant's nonces: a replayed request names the tenant it was signed for, so it is found there. */
  readonly #nonces: ReadonlyMap<string, NonceRegistry>;

  constructor(tenants: readonly string[] | undefined, maxNonces = DEFAULT_MAX_NONCES) {
    this.#tenants = checkedTenants(tenants);
    const share = Math.max(1, Math.floor(maxNonces / this.#tenants.size));
    this.#nonces = new Map([...this.#tenants].map((tenant) => [tenant, new NonceRegistry(DEFAULT_TOLERANCE_SECONDS, share)]));
  }

  /**
   * Before the body is even read: the signature headers are there, well-formed and fresh, and
   * the timestamp passes checkTiming; answers the timestamp, or why the request cannot be valid.
   * Only the HMAC itself needs the body.
   */
  checkHeaders(timestamp: string | undefined, signature: string | undefined, nowSeconds: number): { signedAt: number } | Refusal {
    if (!timestamp || !signature) return signatureRefusal('missing signature headers');
    if (!/^\d{1,12}$/.test(timestamp)) return signatureRefusal('malformed timestamp');
    if (!/^v1=[0-9a-f]{64}$/.test(signature)) return signatureRefusal('malformed signature');
    const signedAt = Number(timestamp);
    if (Math.abs(nowSeconds - signedAt) > DEFAULT_TOLERANCE_SECONDS) return signatureRefusal('stale timestamp');
    return this.checkTiming(signedAt, nowSeconds) ?? { signedAt };
  }

  /** Before the body is parsed: the signature's timestamp against this server's clock and start. */
  checkTiming(signedAt: number, nowSeconds: number): Refusal | undefined {
    if (signedAt > nowSeconds + MAX_SECONDS_AHEAD) {
      return refusal(401, REFUSAL_CODES.signedAhead, `the request's timestamp is ${signedAt - nowSeconds} s ahead of this exec-server's clock (at most ${MAX_SECONDS_AHEAD} s allowed): nothing ran; sync the gateway's and the exec-server's clocks`);
    }
    if (signedAt < this.#startedSeconds) {
      return refusal(401, REFUSAL_CODES.signedBeforeStart, "the request was signed before this exec-server started, so it may be a replay: nothing ran; send a new request (and keep the gateway's and the exec-server's clocks in sync)");
    }
    return undefined;
  }

  /** After the body is parsed: the tenant is served and the nonce is new (it is recorded now). */
  admit(identity: RpcRequestIdentity, signedAt: number, nowSeconds: number): Refusal | undefined {
    if (!this.#tenants.has(identity.tenant)) {
      // The served tenants are not listed: the message reaches the refused tenant's model.
      return refusal(403, REFUSAL_CODES.tenantNotServed, `this exec-server does not serve tenant "${identity.tenant}": nothing ran; its operator starts it with --tenant ${identity.tenant} to serve that tenant, or the tenant's manifest names its own exec-server`);
    }
    const claim = this.#nonces.get(identity.tenant)!.claim(identity.nonce, signedAt, nowSeconds);
    if (claim === 'replayed') {
      return refusal(401, REFUSAL_CODES.replayed, 'this signed request was already received once (its nonce was used): nothing ran again; every request needs a fresh nonce');
    }
    if (claim === 'full') return refusal(503, REFUSAL_CODES.tooManyRequests, `too many requests of tenant "${identity.tenant}" within the signature window to remember them all (each tenant has its part): nothing ran; retry later`);
    return undefined;
  }
}

/** The signature is missing, malformed, stale or wrong (401): nothing ran. */
export function signatureRefusal(reason: string): Refusal {
  const message = `request signature rejected (${reason}): sign requests with the exec-server's TOOLGATE_EXEC_SECRET and keep clocks within ${DEFAULT_TOLERANCE_SECONDS} s`;
  return refusal(401, REFUSAL_CODES.badSignature, message);
}

function refusal(status: number, code: string, message: string): Refusal {
  return { status, code, message };
}

/** The served tenants, each a valid tenant id; at least one. */
function checkedTenants(tenants: readonly string[] | undefined): ReadonlySet<string> {
  if (!Array.isArray(tenants) || tenants.length === 0) {
    throw new Error('the exec-server must be told which tenants it serves: name them with --tenant NAME (repeatable) or TOOLGATE_EXEC_TENANTS=a,b (startExecServer: tenants: ["name"])');
  }
  const invalid = tenants.find((tenant) => typeof tenant !== 'string' || !TENANT_ID_PATTERN.test(tenant));
  if (invalid !== undefined) {
    throw new Error(`tenant ${JSON.stringify(invalid)} is not a tenant id: use the manifest's "tenant" value (lower-case letters, digits, - and _)`);
  }
  return new Set(tenants);
}
