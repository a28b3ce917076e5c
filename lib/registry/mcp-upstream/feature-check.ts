import { checkMcpHeaders, checkMcpProtocol, isHttpUrl } from '../executors/mcp-check.ts';
import type { ManifestProblem } from '../executors/kind.ts';
import { isJsonObject, type JsonObject } from '../json.ts';
import { findInlineSecrets } from '../manifest/secrets.ts';
import { uriTemplateMatcher } from './uri-template.ts';

/**
 * What publishing checks of pinned upstream resources, resource templates and prompts beyond
 * the document's shape: each is found by one key (a URI, a URI template, a name), so no two may
 * share it; a template must be one toolgate can match; a source reaches its upstream as an mcp
 * executor does (an http(s) URL, header secrets as "env:NAME", a revision toolgate speaks).
 */

/** Each section and the key that finds its entries. */
const SECTIONS = [
  ['resources', 'uri'],
  ['resource_templates', 'uri_template'],
  ['prompts', 'name'],
] as const;

export function checkMcpFeatures(manifest: JsonObject): ManifestProblem[] {
  const problems: ManifestProblem[] = [];
  for (const [section, key] of SECTIONS) {
    const entries = manifest[section];
    if (!Array.isArray(entries)) continue;
    const firstIndex = new Map<string, number>();
    entries.forEach((entry, index) => {
      if (!isJsonObject(entry)) return;
      const path = `$.${section}[${index}]`;
      const value = entry[key];
      if (typeof value === 'string') {
        const first = firstIndex.get(value);
        if (first === undefined) firstIndex.set(value, index);
        else problems.push({ path: `${path}.${key}`, message: `duplicate ${key} ${JSON.stringify(value)} (first at $.${section}[${first}]): each must be unique; tell imports apart (prompt_prefix) or leave one out` });
      }
      if (isJsonObject(entry.source)) problems.push(...checkSource(entry.source, `${path}.source`));
      if (section === 'resource_templates' && typeof value === 'string') problems.push(...checkTemplate(value, `${path}.${key}`));
      if (section === 'prompts') problems.push(...checkArguments(entry.arguments, `${path}.arguments`));
      if (section === 'prompts' && isJsonObject(entry.source) && typeof entry.source.prompt !== 'string') {
        problems.push({ path: `${path}.source.prompt`, message: "is required: the prompt's name on the upstream" });
      }
    });
  }
  return problems;
}

function checkSource(source: JsonObject, path: string): ManifestProblem[] {
  // The schema checks the scheme; this catches what passes it but does not parse.
  const url = typeof source.url === 'string' && !isHttpUrl(source.url) ? [{ path: `${path}.url`, message: 'is not a valid URL: write the http(s) URL of the MCP server (its Streamable HTTP endpoint)' }] : [];
  return [...url, ...checkMcpHeaders(source.headers, `${path}.headers`), ...checkMcpProtocol(source.protocol, `${path}.protocol`), ...findInlineSecrets({ url: source.url, headers: source.headers }, path)];
}

function checkTemplate(template: string, path: string): ManifestProblem[] {
  const matcher = uriTemplateMatcher(template);
  return matcher.ok ? [] : [{ path, message: `is not a URI template toolgate can match (RFC 6570): ${matcher.problem}` }];
}

function checkArguments(args: unknown, path: string): ManifestProblem[] {
  if (!Array.isArray(args)) return [];
  const seen = new Set<string>();
  return args.flatMap((arg, i) => {
    if (!isJsonObject(arg) || typeof arg.name !== 'string') return [];
    if (!seen.has(arg.name)) {
      seen.add(arg.name);
      return [];
    }
    return [{ path: `${path}[${i}].name`, message: `duplicate argument name ${JSON.stringify(arg.name)}` }];
  });
}
