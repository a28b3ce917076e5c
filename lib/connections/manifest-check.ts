import type { ManifestProblem } from '../registry/executors/kind.ts';
import { urlProblem } from '../registry/manifest/identity-check.ts';
import { isJsonObject, type JsonObject } from '../registry/json.ts';
import { memberPath } from '../registry/manifest/paths.ts';

/** The URL fields of a connection, each checked as the identity provider's are (https, plain). */
export const CONNECTION_URL_FIELDS = ['issuer', 'authorization_endpoint', 'token_endpoint', 'revocation_endpoint'] as const;

function urlProblems(connection: JsonObject, path: string): ManifestProblem[] {
  return CONNECTION_URL_FIELDS.flatMap((field) => {
    const problem = urlProblem(connection[field], field);
    return problem ? [{ path: `${path}.${field}`, message: problem }] : [];
  });
}

/** What the schema cannot say: where the endpoints come from for the connection's grant. */
function endpointProblems(connection: JsonObject, path: string): ManifestProblem[] {
  if (connection.issuer !== undefined) return [];
  const needed = connection.grant === 'token_exchange' ? ['token_endpoint'] : ['authorization_endpoint', 'token_endpoint'];
  return needed
    .filter((field) => connection[field] === undefined)
    .map((field) => ({ path: `${path}.${field}`, message: `is required unless "issuer" is given (its discovery document then names it)` }));
}

function checkConnection(connection: JsonObject, path: string): ManifestProblem[] {
  const problems = [...urlProblems(connection, path), ...endpointProblems(connection, path)];
  if (connection.grant === 'token_exchange' && connection.pkce !== undefined) {
    problems.push({ path: `${path}.pkce`, message: 'applies to authorization_code connections only: a token exchange has no consent page' });
  }
  return problems;
}

/** `auth` of an executor: `{"connection": name}` naming a connection of this manifest. */
function checkExecutorAuth(auth: unknown, path: string, names: ReadonlySet<string>): ManifestProblem[] {
  if (auth === undefined) return [];
  if (!isJsonObject(auth) || typeof auth.connection !== 'string' || Object.keys(auth).length !== 1) {
    return [{ path, message: 'must be {"connection": "<name>"}: the connection whose user token the tool sends' }];
  }
  if (!names.has(auth.connection)) {
    const known = names.size > 0 ? `; declared: ${[...names].join(', ')}` : '; declare it under "connections"';
    return [{ path: `${path}.connection`, message: `names no connection of this manifest ("${auth.connection}")${known}` }];
  }
  return [];
}

/** A tool that says `approval: "never"` through a connection that asks approval on first use: two words for one call; the tenant says which. */
function checkFirstUse(tool: JsonObject, connections: JsonObject, path: string): ManifestProblem[] {
  const name = isJsonObject(tool.executor) && isJsonObject(tool.executor.auth) ? tool.executor.auth.connection : undefined;
  const connection = typeof name === 'string' && Object.hasOwn(connections, name) ? connections[name] : undefined;
  if (tool.approval !== 'never' || !isJsonObject(connection) || connection.approval_on_first_use !== true) return [];
  return [{ path, message: `is "never", but connection "${name}" asks approval on a user's first use (approval_on_first_use): remove one of them` }];
}

/**
 * The manifest's `connections` and the executors that use them: each connection's URLs are https
 * and plain, its endpoints are known (written, or discoverable from `issuer`), and every
 * executor's `auth.connection` names one of them. Secrets and egress are the confinement check's.
 */
export function checkConnections(manifest: JsonObject): ManifestProblem[] {
  const connections = isJsonObject(manifest.connections) ? manifest.connections : {};
  const problems = Object.entries(connections).flatMap(([name, connection]) =>
    isJsonObject(connection) ? checkConnection(connection, memberPath('$.connections', name)) : [],
  );
  const names = new Set(Object.keys(connections));
  if (Array.isArray(manifest.tools)) {
    manifest.tools.forEach((tool, i) => {
      if (!isJsonObject(tool) || !isJsonObject(tool.executor)) return;
      problems.push(...checkExecutorAuth(tool.executor.auth, `$.tools[${i}].executor.auth`, names));
      problems.push(...checkFirstUse(tool, connections, `$.tools[${i}].approval`));
    });
  }
  return problems;
}
