import { ErrorCode, jsonRpcError } from '../mcp-wire/json-rpc.ts';
import type { ToolDefinition } from '../registry/definition.ts';
import type { Manifest } from '../registry/manifest/manifest.ts';
import type { ToolRegistry } from '../registry/registry.ts';
import { callableBy } from '../search/callable.ts';
import { SEARCH_TOOL_NAME } from '../search/search-tool-definition.ts';
import { McpMethodError } from './method-error.ts';

/** Tools per tools/list page unless the manifest's tool_search.page_size says otherwise. */
export const DEFAULT_TOOLS_PAGE_SIZE = 500;

/**
 * A cursor is the position of the page's first tool in the list this caller is shown. It is
 * not signed because it cannot reach anything: the list is the caller's own (filtered before
 * paging), so a made-up position only skips or repeats tools the caller may list anyway. It
 * must be digits within the list: anything else is the client's mistake, said as such.
 */
const CURSOR = /^[1-9]\d{0,8}$/;

/**
 * What tools/list shows the caller: the tools it may call (its scopes, the tenant's policy: as
 * GET /v1/tools and search show), or with `tool_search.mcp_list: "always_loaded"` only the
 * always_loaded ones among them, plus search_tools to find the rest.
 */
export function mcpListedTools(manifest: Manifest, registry: ToolRegistry, scopes: ReadonlySet<string> | undefined): ToolDefinition[] {
  const settings = manifest.tool_search;
  const always = settings?.mcp_list === 'always_loaded' ? new Set([...(settings.always_loaded ?? []), SEARCH_TOOL_NAME]) : undefined;
  const callable = callableBy(manifest, scopes);
  return registry.definitions().filter((d) => (always === undefined || always.has(d.name)) && callable(d));
}

/** One page of `tools` from `cursor` (absent: the first), with the cursor of the next when more follow. */
export function toolsPage<T>(tools: T[], cursor: unknown, pageSize: number): { page: T[]; nextCursor?: string } {
  let from = 0;
  if (cursor !== undefined) {
    from = typeof cursor === 'string' && CURSOR.test(cursor) ? Number(cursor) : Number.NaN;
    if (!(from < tools.length)) throw new McpMethodError(jsonRpcError(ErrorCode.InvalidParams, 'Invalid cursor: pass back the nextCursor of an earlier tools/list, unchanged (or list again without one)'));
  }
  const to = from + pageSize;
  return to < tools.length ? { page: tools.slice(from, to), nextCursor: String(to) } : { page: tools.slice(from) };
}
