import { isGatewayVariable } from '../../crypto/gateway-variables.ts';
import { SecretGrants } from '../../crypto/secret-grants.ts';
import { secretName } from '../../crypto/secrets.ts';
import { secretRefusal } from '../../crypto/tenant-secrets.ts';
import { EgressPolicy, EgressRefusedError } from '../../egress/policy.ts';
import { CONNECTION_URL_FIELDS } from '../../connections/manifest-check.ts';
import type { ManifestProblem } from '../executors/kind.ts';
import { isJsonObject, type JsonObject } from '../json.ts';
import { memberPath } from './paths.ts';

/** What the gateway checks a tenant's manifest against; each check runs when given. */
export interface ConfinementChecks {
  /** Every "env:NAME" must be granted to the manifest's tenant. */
  secretGrants?: SecretGrants;
  /** A URL whose host is an internal IP literal or name must be allowed by the operator. */
  egress?: EgressPolicy;
}

interface Located {
  path: string;
  value: string;
}

/** The places the runtime resolves secrets and connects to: the exec-server, executors, MCP imports and what they pinned (and, for URLs, the identity provider). */
function outboundSections(manifest: JsonObject): Array<[string, JsonObject]> {
  const sections: Array<[string, JsonObject]> = [];
  if (isJsonObject(manifest.execution_environment)) sections.push(['$.execution_environment', manifest.execution_environment]);
  if (Array.isArray(manifest.tools)) {
    manifest.tools.forEach((tool, i) => {
      if (isJsonObject(tool) && isJsonObject(tool.executor)) sections.push([`$.tools[${i}].executor`, tool.executor]);
    });
  }
  if (Array.isArray(manifest.mcp_imports)) {
    manifest.mcp_imports.forEach((entry, i) => {
      if (isJsonObject(entry)) sections.push([`$.mcp_imports[${i}]`, entry]);
    });
  }
  for (const pinned of ['resources', 'resource_templates', 'prompts']) {
    const entries = manifest[pinned];
    if (!Array.isArray(entries)) continue;
    entries.forEach((entry, i) => {
      if (isJsonObject(entry) && isJsonObject(entry.source)) sections.push([`$.${pinned}[${i}].source`, entry.source]);
    });
  }
  return sections;
}

/** Each connection's fields of `fields` that hold a string: its client secret, or its endpoints (the gateway connects to each). */
function connectionFields(manifest: JsonObject, fields: readonly string[]): Located[] {
  if (!isJsonObject(manifest.connections)) return [];
  return Object.entries(manifest.connections).flatMap(([name, connection]) =>
    isJsonObject(connection)
      ? fields.flatMap((field) => (typeof connection[field] === 'string' ? [{ path: `${memberPath('$.connections', name)}.${field}`, value: connection[field] as string }] : []))
      : [],
  );
}

/** The "env:NAME" references that resolve: `secret` fields and header values. */
function secretReferences(manifest: JsonObject): Located[] {
  const sections = outboundSections(manifest).flatMap(([path, section]) => {
    const found: Located[] = typeof section.secret === 'string' ? [{ path: `${path}.secret`, value: section.secret }] : [];
    if (isJsonObject(section.headers)) {
      for (const [name, value] of Object.entries(section.headers)) {
        if (typeof value === 'string') found.push({ path: memberPath(`${path}.headers`, name), value });
      }
    }
    return found;
  });
  return [...sections, ...connectionFields(manifest, ['client_secret'])];
}

function urls(manifest: JsonObject): Located[] {
  const found = outboundSections(manifest).flatMap(([path, section]) => (typeof section.url === 'string' ? [{ path: `${path}.url`, value: section.url }] : []));
  const keySet = identityKeySetUrl(manifest);
  return [...found, ...connectionFields(manifest, CONNECTION_URL_FIELDS), ...(keySet ? [keySet] : [])];
}

/** Where the gateway fetches a tenant's token keys: jwks_uri, or else the issuer (its discovery document). */
function identityKeySetUrl(manifest: JsonObject): Located | undefined {
  const oidc = isJsonObject(manifest.identity) && isJsonObject(manifest.identity.oidc) ? manifest.identity.oidc : undefined;
  if (typeof oidc?.jwks_uri === 'string') return { path: '$.identity.oidc.jwks_uri', value: oidc.jwks_uri };
  if (typeof oidc?.issuer === 'string') return { path: '$.identity.oidc.issuer', value: oidc.issuer };
  return undefined;
}

function secretProblems(manifest: JsonObject, grants: SecretGrants | undefined): ManifestProblem[] {
  const tenant = typeof manifest.tenant === 'string' ? manifest.tenant : '';
  return secretReferences(manifest).flatMap(({ path, value }) => {
    const name = secretName(value);
    if (name === undefined) return [];
    // The gateway's own variables are refused everywhere; grants only where the operator's are known.
    const refusal = grants || isGatewayVariable(name) ? secretRefusal(tenant, name, grants ?? SecretGrants.none) : undefined;
    return refusal ? [{ path, message: refusal }] : [];
  });
}

/** Literal internal destinations (127.0.0.1, 10.x, localhost, metadata.google.internal, ...); names are resolved at call time. */
function egressProblems(manifest: JsonObject, policy: EgressPolicy): ManifestProblem[] {
  return urls(manifest).flatMap(({ path, value }) => {
    if (!URL.canParse(value)) return [];
    try {
      policy.checkUrl(new URL(value));
      return [];
    } catch (error) {
      if (!(error instanceof EgressRefusedError)) throw error;
      return [{ path, message: error.message }];
    }
  });
}

/**
 * Whether a manifest stays inside what its tenant was given: the secrets the operator granted to
 * it (never the gateway's own variables) and the destinations the egress policy admits.
 */
export function confinementProblems(manifest: JsonObject, checks: ConfinementChecks): ManifestProblem[] {
  return [...secretProblems(manifest, checks.secretGrants), ...(checks.egress ? egressProblems(manifest, checks.egress) : [])];
}
