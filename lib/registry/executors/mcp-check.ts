import { SECRET_REFERENCE } from '../../crypto/secrets.ts';
import { isJsonObject, type JsonObject } from '../json.ts';
import { LEGACY_VERSIONS, MODERN_VERSIONS } from '../mcp-client/protocol.ts';
import { memberPath } from '../manifest/paths.ts';
import type { ManifestProblem } from './kind.ts';

const FIELDS = ['kind', 'url', 'tool', 'headers', 'server', 'protocol', 'client_capabilities', 'task_support', 'auth'];
const PROTOCOLS = [...MODERN_VERSIONS, ...LEGACY_VERSIONS];

/** An http(s) URL that parses: what an MCP Streamable HTTP endpoint must be. */
export function isHttpUrl(value: unknown): value is string {
  if (typeof value !== 'string' || !/^https?:\/\/[^/]/.test(value)) return false;
  try {
    new URL(value);
    return true;
  } catch {
    return false;
  }
}

/**
 * Header values are sent as written, except "env:NAME" ones, which the runtime resolves. A value
 * that starts with "env:" but is no valid reference would leak out literally: refuse it. (Secret
 * header names holding inline values are the loader's findInlineSecrets' to report.)
 */
export function checkMcpHeaders(headers: unknown, path: string): ManifestProblem[] {
  if (headers === undefined) return [];
  if (typeof headers !== 'object' || headers === null || Array.isArray(headers) || Object.values(headers).some((v) => typeof v !== 'string')) {
    return [{ path, message: 'must be an object of header names to string values ("env:NAME" for secrets)' }];
  }
  return Object.entries(headers as Record<string, string>)
    .filter(([, value]) => value.startsWith('env:') && !SECRET_REFERENCE.test(value))
    .map(([name]) => ({ path: memberPath(path, name), message: 'is not a valid secret reference: write "env:NAME" with NAME made of letters, digits and _' }));
}

/** The upstream's revision an import learnt, when there is one: one toolgate speaks. */
export function checkMcpProtocol(protocol: unknown, path: string): ManifestProblem[] {
  if (protocol === undefined || PROTOCOLS.includes(String(protocol))) return [];
  return [{ path, message: `must be an MCP protocol revision toolgate speaks (${PROTOCOLS.join(', ')}); import it again to learn it` }];
}

/** What an import learnt about how to call the tool: the upstream's revision, capabilities to declare, tasks. */
function checkCallSettings(config: JsonObject, path: string): ManifestProblem[] {
  const problems: ManifestProblem[] = [...checkMcpProtocol(config.protocol, `${path}.protocol`)];
  if (config.client_capabilities !== undefined && !isJsonObject(config.client_capabilities)) {
    problems.push({ path: `${path}.client_capabilities`, message: 'must be an object of MCP client capabilities ({"sampling": {}, ...})' });
  }
  if (config.task_support !== undefined && config.task_support !== 'required') {
    problems.push({ path: `${path}.task_support`, message: 'must be "required" (the upstream runs the tool only as a task) or absent' });
  }
  return problems;
}

/** The mcp executor's fields: url (http/https), tool (the upstream's name), headers, server, and what an import learnt (protocol, client_capabilities, task_support). */
export function checkMcpExecutor(config: JsonObject, path: string): ManifestProblem[] {
  const problems: ManifestProblem[] = [];
  if (!isHttpUrl(config.url)) problems.push({ path: `${path}.url`, message: 'must be the http(s) URL of the upstream MCP server (its Streamable HTTP endpoint)' });
  if (typeof config.tool !== 'string' || config.tool === '') problems.push({ path: `${path}.tool`, message: "is required: the tool's name on the upstream MCP server" });
  if (config.server !== undefined && typeof config.server !== 'string') problems.push({ path: `${path}.server`, message: 'must be the name of the mcp_imports entry that pinned this tool' });
  problems.push(...checkMcpHeaders(config.headers, `${path}.headers`));
  problems.push(...checkCallSettings(config, path));
  for (const key of Object.keys(config).filter((k) => !FIELDS.includes(k))) {
    problems.push({ path: `${path}.${key}`, message: `is not a field of an mcp executor (${FIELDS.slice(1).join(', ')})` });
  }
  return problems;
}
