import type { ToolDefinition } from '../definition.ts';
import { meetsStrictMode } from './strict-schema.ts';

/** A Responses API function tool (the openai package's FunctionTool). */
export interface ResponsesFunctionTool {
  type: 'function';
  name: string;
  description: string;
  parameters: { [key: string]: unknown };
  strict: boolean;
}

/** OpenAI's native apply_patch tool: the model sends `apply_patch_call` items. */
export interface ResponsesApplyPatchTool {
  type: 'apply_patch';
}

/** OpenAI's native shell tool, run by the client (here: toolgate), not in OpenAI's container. */
export interface ResponsesShellTool {
  type: 'shell';
  environment: { type: 'local' };
}

export type ResponsesTool = ResponsesFunctionTool | ResponsesApplyPatchTool | ResponsesShellTool;

/**
 * The native tool that stands for a tenant tool of this name: its calls are dispatched to that
 * tool (lib/dispatch/formats/responses.ts), whatever executor the tenant gave it.
 */
function nativeTool(name: string): ResponsesApplyPatchTool | ResponsesShellTool | undefined {
  if (name === 'apply_patch') return { type: 'apply_patch' };
  if (name === 'shell') return { type: 'shell', environment: { type: 'local' } };
  return undefined;
}

/** Responses function tools; with `native`, OpenAI's own apply_patch and shell in place of the function versions. */
export function toResponsesTools(definitions: ToolDefinition[], options: { native: boolean }): ResponsesTool[] {
  return definitions.map((d) => (options.native ? nativeTool(d.name) : undefined) ?? functionTool(d));
}

function functionTool(d: ToolDefinition): ResponsesFunctionTool {
  const parameters = typeof d.input_schema === 'object' ? d.input_schema : {};
  return { type: 'function', name: d.name, description: d.description, parameters, strict: meetsStrictMode(parameters) };
}
