import { exportTools, isToolFormat } from '../registry/formats/index.ts';
import { ToolError } from '../registry/errors.ts';
import type { ToolDefinition } from '../registry/definition.ts';
import type { ToolExecutionContext } from '../registry/executor.ts';
import type { JsonObject, JsonValue } from '../registry/json.ts';
import { toolCatalog, type CatalogSource } from './catalog.ts';
import { DEFAULT_SEARCH_TOOL_RESULTS, SEARCH_TOOL_NAME } from './search-tool-definition.ts';

/**
 * Runs a `search_tools` call: the catalog's best matches among the tools the caller may call,
 * as definitions in the format the caller's client takes tools in (its dispatch format; MCP
 * tools over MCP). Outside the pipeline (no `caller`) it refuses: it cannot know whom to show what.
 */
export async function runSearchTool(source: CatalogSource, args: JsonObject, context: ToolExecutionContext): Promise<JsonValue> {
  const caller = context.caller;
  if (!caller) throw new ToolError('error', `${SEARCH_TOOL_NAME} runs only as a caller's own call: search again`);
  // The schema checked both (a string of 1 to 500 characters; a whole number of 1 to 20).
  const query = args.query as string;
  const limit = (args.limit as number | undefined) ?? DEFAULT_SEARCH_TOOL_RESULTS;
  const catalog = await toolCatalog(source);
  const found = catalog.search({ query, limit, scopes: caller.scopes });
  const format = isToolFormat(caller.tool_format) ? caller.tool_format : 'toolgate';
  const tools = exportable(found, format);
  const note = tools.length === 0 ? 'No tool you may call matches; try other words for what you need.' : `Best match first. Call a tool by its name.`;
  return { query, format, tools, note } as unknown as JsonValue;
}

/** Each tool in the format; one the format cannot express (a Gemini schema it refuses) is left out rather than failing the search. */
function exportable(definitions: ToolDefinition[], format: Parameters<typeof exportTools>[1]): unknown[] {
  return definitions.flatMap((definition) => {
    try {
      return exportTools([definition], format);
    } catch {
      return [];
    }
  });
}
