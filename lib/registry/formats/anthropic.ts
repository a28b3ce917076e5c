import type { ToolDefinition } from '../definition.ts';

/** A Messages API custom tool. Anthropic takes object schemas; toolgate's tools all take an arguments object. */
export interface AnthropicCustomTool {
  name: string;
  description: string;
  input_schema: { type: 'object'; [keyword: string]: unknown };
}

/** Messages API tools. */
export function toAnthropicTools(definitions: ToolDefinition[]): AnthropicCustomTool[] {
  return definitions.map((d) => ({ name: d.name, description: d.description, input_schema: d.input_schema as AnthropicCustomTool['input_schema'] }));
}
