import type { Manifest } from '../manifest/manifest.ts';
import { checkMcpHeaders, isHttpUrl } from '../executors/mcp-check.ts';
import type { ManifestProblem } from '../executors/kind.ts';
import { isJsonObject } from '../json.ts';
import { findInlineSecrets } from '../manifest/secrets.ts';

/**
 * What the loader can check of `mcp_imports` without asking the servers: unique server names,
 * something to pin, URLs, and header secrets. Tool names in `tools`, `rename` and `tiers` are checked by the
 * import, which knows what each server has.
 */
export function checkMcpImports(imports: unknown): ManifestProblem[] {
  if (!Array.isArray(imports)) return [];
  const problems: ManifestProblem[] = [];
  const firstIndex = new Map<string, number>();
  imports.forEach((entry, index) => {
    if (!isJsonObject(entry)) return;
    const path = `$.mcp_imports[${index}]`;
    if (typeof entry.server === 'string') {
      const first = firstIndex.get(entry.server);
      if (first === undefined) firstIndex.set(entry.server, index);
      else problems.push({ path: `${path}.server`, message: `duplicate server name "${entry.server}" (first used at $.mcp_imports[${first}]); give each import its own name` });
    }
    // The schema checks the scheme; this catches what passes it but does not parse ("https://exa mple").
    if (typeof entry.url === 'string' && /^https?:\/\//.test(entry.url) && !isHttpUrl(entry.url)) {
      problems.push({ path: `${path}.url`, message: 'is not a valid URL: write the http(s) URL of the MCP server (its Streamable HTTP endpoint)' });
    }
    if (!['tools', 'resources', 'resource_templates', 'prompts'].some((key) => entry[key] !== undefined)) {
      problems.push({ path: `${path}.tools`, message: 'is required (unless the import takes resources, resource_templates or prompts): say what to pin' });
    }
    problems.push(...checkMcpHeaders(entry.headers, `${path}.headers`));
    // Only url and headers: tool names in rename/tiers may contain "token" or "secret" innocently.
    problems.push(...findInlineSecrets({ url: entry.url, headers: entry.headers }, path));
  });
  return problems;
}

/**
 * Imports with nothing pinned in the manifest yet (no tool, resource, template or prompt). A gateway publishes manifests as they are (it
 * holds no upstream secrets at publish time), so these must be pinned first with the CLI.
 */
export function unpinnedImports(manifest: Manifest): string[] {
  const pinned = new Set(manifest.tools.flatMap((tool) => (tool.executor.kind === 'mcp' && typeof tool.executor.server === 'string' ? [tool.executor.server] : [])));
  for (const entry of [...(manifest.resources ?? []), ...(manifest.resource_templates ?? []), ...(manifest.prompts ?? [])]) {
    if (entry.source.server !== undefined) pinned.add(entry.source.server);
  }
  return (manifest.mcp_imports ?? []).map((entry) => entry.server).filter((server) => !pinned.has(server));
}
