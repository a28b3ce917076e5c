/**
 * Compile-time check (run by `npx tsc --noEmit`, not by vitest): the deferred lists of
 * `GET /v1/tools?format=anthropic|responses&defer=1` (lib/search/deferred-tools.ts) are what the
 * providers' own SDKs take: Anthropic's `defer_loading` on a custom tool and its BM25 tool search
 * tool (@anthropic-ai/sdk), OpenAI's `defer_loading` on a function tool and its `tool_search`
 * tool (openai, Responses API). A field named or typed differently from the SDK fails the check.
 */
import type { Tool as AnthropicTool, ToolSearchToolBm25_20251119, ToolUnion } from '@anthropic-ai/sdk/resources/messages/messages';
import type { FunctionTool, Tool as ResponsesToolUnion, ToolSearchTool } from 'openai/resources/responses/responses';
import type { AnthropicCustomTool } from '../../lib/registry/formats/anthropic.ts';
import type { ResponsesFunctionTool } from '../../lib/registry/formats/responses.ts';
import { ANTHROPIC_TOOL_SEARCH, RESPONSES_TOOL_SEARCH, type AnthropicToolSearchTool, type DeferredTool, type ResponsesToolSearchTool } from '../../lib/search/deferred-tools.ts';

// Anthropic Messages API `tools`: deferred custom tools and the tool search tool.
export const anthropicDeferred: AnthropicTool = {} as DeferredTool<AnthropicCustomTool>;
export const anthropicSearch: ToolSearchToolBm25_20251119 = ANTHROPIC_TOOL_SEARCH;
export const anthropicSearchType: ToolSearchToolBm25_20251119 = {} as AnthropicToolSearchTool;
export const anthropicList: ToolUnion[] = [{} as DeferredTool<AnthropicCustomTool>, ANTHROPIC_TOOL_SEARCH];

// OpenAI Responses API `tools`: deferred function tools and tool_search.
export const responsesDeferred: FunctionTool = {} as DeferredTool<ResponsesFunctionTool>;
export const responsesSearch: ToolSearchTool = RESPONSES_TOOL_SEARCH;
export const responsesSearchType: ToolSearchTool = {} as ResponsesToolSearchTool;
export const responsesList: ResponsesToolUnion[] = [{} as DeferredTool<ResponsesFunctionTool>, RESPONSES_TOOL_SEARCH];
