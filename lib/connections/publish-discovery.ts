import type { Fetch } from '../egress/fetch.ts';
import { EgressRefusedError, type EgressPolicy } from '../egress/policy.ts';
import type { ManifestProblem } from '../registry/executors/kind.ts';
import type { Manifest } from '../registry/manifest/manifest.ts';
import { memberPath } from '../registry/manifest/paths.ts';
import { providerEndpoints } from './provider-metadata.ts';

/**
 * At publish, each connection with an `issuer` has its metadata read (OIDC discovery, then RFC
 * 8414) through the gateway's egress: it must name the same issuer, and every endpoint it names
 * must be one the egress policy lets the gateway reach (so a provider's document cannot send a
 * user's code or token somewhere the manifest could not have named).
 */
export async function discoveryProblems(manifest: Manifest, fetch: Fetch, policy: EgressPolicy | undefined): Promise<ManifestProblem[]> {
  const problems: ManifestProblem[] = [];
  for (const [name, settings] of Object.entries(manifest.connections ?? {})) {
    if (!settings.issuer) continue;
    const path = memberPath('$.connections', name);
    try {
      const endpoints = await providerEndpoints(settings, fetch, Date.now(), { fresh: true });
      const found = [['authorization_endpoint', endpoints.authorization_endpoint], ['token_endpoint', endpoints.token_endpoint], ['revocation_endpoint', endpoints.revocation_endpoint]] as const;
      for (const [field, url] of found) {
        if (url === undefined || settings[field] !== undefined) continue;
        const refused = egressRefusal(policy, url);
        if (refused) problems.push({ path: `${path}.issuer`, message: `the issuer's metadata names the ${field} ${url.slice(0, 200)}, but ${refused}` });
      }
      if (settings.grant !== 'token_exchange' && !endpoints.authorization_endpoint) problems.push({ path: `${path}.issuer`, message: "the issuer's metadata names no authorization_endpoint: write it in the connection" });
    } catch (error) {
      problems.push({ path: `${path}.issuer`, message: `cannot read the issuer's metadata: ${(error as Error).message}` });
    }
  }
  return problems;
}

function egressRefusal(policy: EgressPolicy | undefined, url: string): string | undefined {
  if (!policy || !URL.canParse(url)) return undefined;
  try {
    policy.checkUrl(new URL(url));
    return undefined;
  } catch (error) {
    if (error instanceof EgressRefusedError) return error.message;
    throw error;
  }
}
