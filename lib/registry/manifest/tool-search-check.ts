import type { ExecutorKindContext, ManifestProblem } from '../executors/kind.ts';
import { isJsonObject, type JsonObject } from '../json.ts';

/** search_tools: lib/search/search-tool-definition.ts (the registry does not import the search layer). */
const SEARCH_TOOL_NAME = 'search_tools';

/**
 * `tool_search.always_loaded` names tools the tenant has: its manifest's, the built-ins its
 * profile brings, or search_tools. A name that is none of them would silently keep nothing
 * loaded (a typo leaves the model without the tool it was meant to always have), so it is a
 * problem at its path. The schema checks the shapes.
 */
export function checkToolSearch(manifest: JsonObject, builtins: ExecutorKindContext['builtins']): ManifestProblem[] {
  const settings = manifest.tool_search;
  if (!isJsonObject(settings) || !Array.isArray(settings.always_loaded)) return [];
  const tools = Array.isArray(manifest.tools) ? manifest.tools : [];
  const known = new Set<string>([SEARCH_TOOL_NAME, ...builtins.keys(), ...tools.flatMap((tool) => (isJsonObject(tool) && typeof tool.name === 'string' ? [tool.name] : []))]);
  return settings.always_loaded.flatMap((name, index) =>
    typeof name === 'string' && !known.has(name) ? [{ path: `$.tool_search.always_loaded[${index}]`, message: `names no tool of this manifest: "${name}" is not in tools (nor a built-in tool); list the names of tools to always send` }] : [],
  );
}
