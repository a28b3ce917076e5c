import type { ToolDefinition } from '../definition.ts';
import { toAnthropicTools } from './anthropic.ts';
import { toGeminiTools } from './gemini.ts';
import { toMcpTools } from './mcp.ts';
import { toOpenAITools } from './openai.ts';

export const TOOL_FORMATS = ['toolgate', 'openai', 'anthropic', 'gemini', 'mcp'] as const;
export type ToolFormat = (typeof TOOL_FORMATS)[number];

export function isToolFormat(value: string): value is ToolFormat {
  return (TOOL_FORMATS as readonly string[]).includes(value);
}

/** Tool definitions in the shape a provider's API takes them. */
export function exportTools(definitions: ToolDefinition[], format: ToolFormat): unknown[] {
  switch (format) {
    case 'openai':
      return toOpenAITools(definitions);
    case 'anthropic':
      return toAnthropicTools(definitions);
    case 'gemini':
      return toGeminiTools(definitions);
    case 'mcp':
      return toMcpTools(definitions);
    case 'toolgate':
      return definitions;
  }
}

export { GeminiSchemaError } from './gemini-schema.ts';
