import type { ToolDefinition } from '../definition.ts';
import { toAnthropicTools } from './anthropic.ts';
import { toGeminiTools } from './gemini.ts';
import { toMcpTools } from './mcp.ts';
import { toOpenAITools } from './openai.ts';
import { toResponsesTools } from './responses.ts';

export const TOOL_FORMATS = ['toolgate', 'openai', 'responses', 'anthropic', 'gemini', 'mcp'] as const;
export type ToolFormat = (typeof TOOL_FORMATS)[number];

export function isToolFormat(value: string): value is ToolFormat {
  return (TOOL_FORMATS as readonly string[]).includes(value);
}

export interface ExportOptions {
  /**
   * The provider's native tools in place of the function versions of the tools they stand for
   * (`?native=1|0`); unset, each format's default: Responses uses OpenAI's apply_patch and shell
   * for the openai profile.
   */
  native?: boolean;
  /** The tenant's profile, which decides that default. */
  profile?: string;
}

/** Tool definitions in the shape a provider's API takes them. */
export function exportTools(definitions: ToolDefinition[], format: ToolFormat, options: ExportOptions = {}): unknown[] {
  switch (format) {
    case 'openai':
      return toOpenAITools(definitions);
    case 'responses':
      return toResponsesTools(definitions, { native: options.native ?? options.profile === 'openai' });
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
