import type { AnthropicCustomTool } from '../registry/formats/anthropic.ts';
import type { ResponsesFunctionTool } from '../registry/formats/responses.ts';
import { SEARCH_TOOL_NAME } from './search-tool-definition.ts';

/**
 * The providers' own deferral (`GET /v1/tools?format=anthropic|responses&defer=1`): every tool
 * the caller may call is sent, all but the tenant's `always_loaded` ones marked
 * `defer_loading: true`, plus the provider's tool search tool, which finds deferred tools on
 * the provider's side and loads only those into the model's context. Shapes as in
 * @anthropic-ai/sdk 1.12 (`Tool.defer_loading`, `ToolSearchToolBm25_20251119`) and openai 6.49
 * (`FunctionTool.defer_loading`, `ToolSearchTool`); test/types checks them.
 */
export const DEFER_FORMATS = ['anthropic', 'responses'] as const;
export type DeferFormat = (typeof DEFER_FORMATS)[number];

export interface AnthropicToolSearchTool {
  type: 'tool_search_tool_bm25_20251119';
  name: 'tool_search_tool_bm25';
}

export interface ResponsesToolSearchTool {
  type: 'tool_search';
  execution: 'server';
}

export type DeferredTool<T> = T & { defer_loading?: true };

export const ANTHROPIC_TOOL_SEARCH: AnthropicToolSearchTool = { type: 'tool_search_tool_bm25_20251119', name: 'tool_search_tool_bm25' };
export const RESPONSES_TOOL_SEARCH: ResponsesToolSearchTool = { type: 'tool_search', execution: 'server' };

/**
 * Marks the function tools (a custom tool for Anthropic: no `type`; `type: "function"` for
 * Responses) that are not always loaded; the providers' native tools (text editor, bash,
 * apply_patch, shell) stay loaded: they are the coding agent's everyday tools. search_tools is
 * left out: the provider's own search takes its place.
 */
export function withDeferredLoading(tools: unknown[], format: DeferFormat, alwaysLoaded: ReadonlySet<string>): unknown[] {
  const deferrable = (tool: Partial<AnthropicCustomTool & ResponsesFunctionTool>) => (format === 'anthropic' ? tool.type === undefined : tool.type === 'function');
  const marked = (tools as Array<Partial<AnthropicCustomTool & ResponsesFunctionTool>>)
    .filter((tool) => tool.name !== SEARCH_TOOL_NAME)
    .map((tool) => (deferrable(tool) && !alwaysLoaded.has(tool.name ?? '') ? { ...tool, defer_loading: true } : tool));
  return [...marked, format === 'anthropic' ? ANTHROPIC_TOOL_SEARCH : RESPONSES_TOOL_SEARCH];
}
