/**
 * Compile-time check (run by `npx tsc --noEmit`, not by vitest): what toolgate emits for the
 * Responses API is assignable to the `openai` package's own types. A field toolgate names or
 * types differently from the SDK fails the type check.
 */
import type {
  ApplyPatchTool,
  FunctionShellTool,
  FunctionTool,
  ResponseInputItem,
  Tool,
} from 'openai/resources/responses/responses';
import type { ToolCall, ToolResult } from '../../lib/dispatch/call.ts';
import type { ApplyPatchCallOutputItem, FunctionCallOutputItem, ShellCallOutputItem } from '../../lib/dispatch/formats/responses-items.ts';
import { writeResponsesItems } from '../../lib/dispatch/formats/responses-output.ts';
import type { ResponsesApplyPatchTool, ResponsesFunctionTool, ResponsesShellTool } from '../../lib/registry/formats/responses.ts';
import { toResponsesTools } from '../../lib/registry/formats/responses.ts';

declare const results: ToolResult[];
declare const calls: ToolCall[];

// GET /v1/tools?format=responses: every tool is a Tool of a request's `tools`, each kind its own type.
export const tools: Tool[] = toResponsesTools([], { native: true });
export const functionTool: FunctionTool = {} as ResponsesFunctionTool;
export const applyPatchTool: ApplyPatchTool = {} as ResponsesApplyPatchTool;
export const shellTool: FunctionShellTool = {} as ResponsesShellTool;

// POST /v1/dispatch with format "responses": `messages` are input items of the next request.
export const input: ResponseInputItem[] = writeResponsesItems(results, calls);
export const functionCallOutput: ResponseInputItem.FunctionCallOutput = {} as FunctionCallOutputItem;
export const applyPatchCallOutput: ResponseInputItem.ApplyPatchCallOutput = {} as ApplyPatchCallOutputItem;
export const shellCallOutput: ResponseInputItem.ShellCallOutput = {} as ShellCallOutputItem;
