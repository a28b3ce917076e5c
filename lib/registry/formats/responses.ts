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
 * tool (lib/dispatch/formats/responses.ts) as `{patch}` or `{command, timeout_ms}`,
 * so it is offered only where the tool takes that argument; a tenant's own `shell` that takes
 * something else stays a function tool, which its calls can fit.
 */
function nativeTool(d: ToolDefinition): ResponsesApplyPatchTool | ResponsesShellTool | undefined {
  if (d.name === 'apply_patch' && takesString(d, 'patch')) return { type: 'apply_patch' };
  if (d.name === 'shell' && takesString(d, 'command')) return { type: 'shell', environment: { type: 'local' } };
  return undefined;
}

function takesString(d: ToolDefinition, property: string): boolean {
  const properties = (d.input_schema as { properties?: Record<string, { type?: unknown }> }).properties;
  return properties?.[property]?.type === 'string';
}

/** Responses function tools; with `native`, OpenAI's own apply_patch and shell in place of the function versions. */
export function toResponsesTools(definitions: ToolDefinition[], options: { native: boolean }): ResponsesTool[] {
  return definitions.map((d) => (options.native ? nativeTool(d) : undefined) ?? functionTool(d));
}

function functionTool(d: ToolDefinition): ResponsesFunctionTool {
  const parameters = typeof d.input_schema === 'object' ? d.input_schema : {};
  return { type: 'function', name: d.name, description: d.description, parameters, strict: meetsStrictMode(parameters) };
}
