import type { Fetch } from '../egress/fetch.ts';
import { DiscoveryError, discoveryUrl } from '../governance/oidc-discovery.ts';
import { readBoundedText } from '../registry/executors/bounded-body.ts';
import { urlProblem } from '../registry/manifest/identity-check.ts';
import type { ConnectionSettings } from '../registry/manifest/manifest.ts';
import { providerSignal, providerTimeout } from './oauth-client.ts';

const MAX_METADATA_BYTES = 256 * 1024;
/** How long an isolate keeps a provider's metadata before reading it again. */
const METADATA_TTL_MS = 60 * 60 * 1000;

/** Where a connection's provider takes each request, and what it promises about `iss`. */
export interface ProviderEndpoints {
  issuer?: string;
  authorization_endpoint?: string;
  token_endpoint: string;
  revocation_endpoint?: string;
  /** RFC 9207: the provider puts `iss` on every authorization response, so one without it is refused. */
  iss_required: boolean;
}

const cache = new Map<string, { at: number; metadata: Promise<Record<string, unknown>> }>();

/** RFC 8414 §3: `/.well-known/oauth-authorization-server` inserted before the issuer's path. */
function authorizationServerUrl(issuer: string): URL {
  const url = new URL(issuer);
  const path = url.pathname === '/' ? '' : url.pathname.replace(/\/+$/, '');
  return new URL(`/.well-known/oauth-authorization-server${path}`, url.origin);
}

async function readMetadata(url: URL, fetch: Fetch, signal?: AbortSignal): Promise<Record<string, unknown> | undefined> {
  let text: string | undefined;
  try {
    const response = await fetch(url, { method: 'GET', headers: { accept: 'application/json' }, signal: providerSignal(signal) });
    if (response.status !== 200) {
      await response.body?.cancel().catch(() => {});
      return undefined;
    }
    text = await readBoundedText(response, MAX_METADATA_BYTES);
  } catch (error) {
    throw providerTimeout(error, url);
  }
  if (text === undefined) throw new DiscoveryError(`the provider's metadata ${url.href} is larger than ${MAX_METADATA_BYTES} bytes`);
  try {
    const value = JSON.parse(text) as unknown;
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    throw new DiscoveryError(`the provider's metadata ${url.href} is not JSON`);
  }
}

/** OIDC discovery, then RFC 8414; the document must name the same issuer (a document served elsewhere could name another provider's endpoints). */
async function discover(issuer: string, fetch: Fetch, signal?: AbortSignal): Promise<Record<string, unknown>> {
  for (const url of [discoveryUrl(issuer), authorizationServerUrl(issuer)]) {
    const metadata = await readMetadata(url, fetch, signal);
    if (!metadata) continue;
    if (metadata.issuer !== issuer) throw new DiscoveryError(`the metadata at ${url.href} names the issuer ${JSON.stringify(metadata.issuer)?.slice(0, 200)}, not "${issuer}": write the connection's issuer exactly as the provider does`);
    return metadata;
  }
  throw new DiscoveryError(`the issuer ${issuer} publishes no metadata (neither ${discoveryUrl(issuer).href} nor ${authorizationServerUrl(issuer).href}): write the connection's endpoints in the manifest`);
}

function cachedDiscovery(issuer: string, fetch: Fetch, now: number): Promise<Record<string, unknown>> {
  const hit = cache.get(issuer);
  if (hit && now - hit.at < METADATA_TTL_MS) return hit.metadata;
  const metadata = discover(issuer, fetch);
  // A failure is not kept: the next call asks again.
  metadata.catch(() => cache.delete(issuer));
  if (cache.size > 256) cache.clear();
  cache.set(issuer, { at: now, metadata });
  return metadata;
}

/**
 * An endpoint the metadata names, taken only as the manifest's own would be (https, or plain http
 * on loopback; no credentials): a code, client secret or token never crosses the network in the
 * clear because a provider's document said so.
 */
function metadataUrl(metadata: Record<string, unknown>, field: string): string | undefined {
  const value = metadata[field];
  if (value === undefined || value === null) return undefined;
  const problem = typeof value === 'string' && /^https?:\/\//.test(value) && URL.canParse(value) ? urlProblem(value, field) : `${field} is not an http(s) URL`;
  if (problem) throw new DiscoveryError(`the provider's metadata names the ${field} ${JSON.stringify(value)?.slice(0, 200)}: ${problem}`);
  return value as string;
}

/**
 * The connection's endpoints: those the manifest writes, the rest from the issuer's metadata
 * (read through the gateway's egress, so every one is also where egress lets the gateway go).
 */
export async function providerEndpoints(settings: ConnectionSettings, fetch: Fetch, now = Date.now(), options: { fresh?: boolean } = {}): Promise<ProviderEndpoints> {
  const needed = settings.issuer && !(settings.token_endpoint && (settings.authorization_endpoint || settings.grant === 'token_exchange'));
  const metadata = needed ? await (options.fresh ? discover(settings.issuer!, fetch) : cachedDiscovery(settings.issuer!, fetch, now)) : {};
  const token_endpoint = settings.token_endpoint ?? metadataUrl(metadata, 'token_endpoint');
  if (!token_endpoint) throw new DiscoveryError(`the issuer ${settings.issuer} names no token_endpoint: write it in the connection`);
  const authorization_endpoint = settings.authorization_endpoint ?? metadataUrl(metadata, 'authorization_endpoint');
  const revocation_endpoint = settings.revocation_endpoint ?? metadataUrl(metadata, 'revocation_endpoint');
  return {
    ...(settings.issuer ? { issuer: settings.issuer } : {}),
    ...(authorization_endpoint ? { authorization_endpoint } : {}),
    token_endpoint,
    ...(revocation_endpoint ? { revocation_endpoint } : {}),
    iss_required: metadata.authorization_response_iss_parameter_supported === true,
  };
}

/** Forgets what this isolate read (tests). */
export function clearProviderMetadata(): void {
  cache.clear();
}
