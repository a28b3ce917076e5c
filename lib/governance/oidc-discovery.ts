import type { Fetch } from '../egress/fetch.ts';
import { readBoundedText } from '../registry/executors/bounded-body.ts';

/** A discovery document is a few kilobytes; more is not one (and is not read). */
const MAX_DISCOVERY_BYTES = 256 * 1024;

/** The issuer's metadata could not be read or does not fit; the message says what to fix. */
export class DiscoveryError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DiscoveryError';
  }
}

/** `${issuer}/.well-known/openid-configuration` (OpenID Connect Discovery 1.0, section 4). */
export function discoveryUrl(issuer: string): URL {
  return new URL(`${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`);
}

/**
 * The issuer's `jwks_uri`, read from its discovery document through the gateway's egress fetch.
 * The document must name the same issuer (Discovery 4.3: otherwise a document served elsewhere
 * could point at keys the tenant's provider never published).
 */
export async function discoverJwksUri(issuer: string, fetch: Fetch, signal?: AbortSignal): Promise<URL> {
  const url = discoveryUrl(issuer);
  const response = await fetch(url, { method: 'GET', headers: { accept: 'application/json' }, signal });
  if (response.status !== 200) {
    await response.body?.cancel();
    throw new DiscoveryError(`the issuer's discovery document ${url.href} answered HTTP ${response.status}; set identity.oidc.jwks_uri in the manifest, or fix the issuer`);
  }
  const text = await readBoundedText(response, MAX_DISCOVERY_BYTES);
  if (text === undefined) throw new DiscoveryError(`the issuer's discovery document ${url.href} is larger than ${MAX_DISCOVERY_BYTES} bytes`);
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch {
    throw new DiscoveryError(`the issuer's discovery document ${url.href} is not JSON`);
  }
  const fields = typeof document === 'object' && document !== null ? (document as Record<string, unknown>) : {};
  if (fields.issuer !== issuer) throw new DiscoveryError(`the discovery document at ${url.href} names the issuer ${JSON.stringify(fields.issuer)}, not "${issuer}"; write identity.oidc.issuer exactly as the provider does`);
  if (typeof fields.jwks_uri !== 'string' || !/^https?:\/\//.test(fields.jwks_uri) || !URL.canParse(fields.jwks_uri)) {
    throw new DiscoveryError(`the discovery document at ${url.href} has no http(s) jwks_uri; set identity.oidc.jwks_uri in the manifest`);
  }
  const jwks = new URL(fields.jwks_uri);
  if (jwks.protocol === 'http:' && !['127.0.0.1', '[::1]', 'localhost'].includes(jwks.hostname)) {
    throw new DiscoveryError(`the discovery document at ${url.href} names a plain-http jwks_uri (${jwks.href}); keys are fetched over https only`);
  }
  return jwks;
}
