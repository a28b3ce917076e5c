import type { ToolDefinition } from '../definition.ts';
import { toAnthropicTools } from './anthropic.ts';
import { toAnthropicNativeTools, type NativeToolContext } from './anthropic-native.ts';
import { toGeminiTools } from './gemini.ts';
import { toMcpTools } from './mcp.ts';
import { toOpenAITools } from './openai.ts';
import { toResponsesTools } from './responses.ts';

export const TOOL_FORMATS = ['toolgate', 'openai', 'responses', 'anthropic', 'gemini', 'mcp'] as const;
export type ToolFormat = (typeof TOOL_FORMATS)[number];

export function isToolFormat(value: string): value is ToolFormat {
  return (TOOL_FORMATS as readonly string[]).includes(value);
}

/** Formats whose provider has native tools that can stand in for toolgate's coding tools. */
export const NATIVE_TOOL_FORMATS: readonly ToolFormat[] = ['responses', 'anthropic'];

export interface ExportOptions {
  /**
   * The provider's native tools in place of the function versions of the tools they stand for
   * (`?native=1|0`); unset, each format's default: Responses uses OpenAI's apply_patch and shell
   * for the openai profile, Anthropic its function tools.
   */
  native?: boolean;
  /** The tenant's profile, which decides that default. */
  profile?: string;
  /** Which names the tenant has (a tenant tool named like a native tool keeps its name). */
  registered?: NativeToolContext;
}

/** Tool definitions in the shape a provider's API takes them. */
export function exportTools(definitions: ToolDefinition[], format: ToolFormat, options: ExportOptions = {}): unknown[] {
  switch (format) {
    case 'openai':
      return toOpenAITools(definitions);
    case 'responses':
      return toResponsesTools(definitions, { native: options.native ?? options.profile === 'openai' });
    case 'anthropic':
      if (options.native) return toAnthropicNativeTools(definitions, options.registered ?? registeredAmong(definitions));
      return toAnthropicTools(definitions);
    case 'gemini':
      return toGeminiTools(definitions);
    case 'mcp':
      return toMcpTools(definitions);
    case 'toolgate':
      return definitions;
  }
}

function registeredAmong(definitions: ToolDefinition[]): NativeToolContext {
  const names = new Set(definitions.map((d) => d.name));
  return { isRegistered: (name) => names.has(name) };
}

export { GeminiSchemaError } from './gemini-schema.ts';
