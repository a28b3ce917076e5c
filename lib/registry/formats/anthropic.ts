import type { ToolDefinition } from '../definition.ts';

/** Messages API tools. */
export function toAnthropicTools(definitions: ToolDefinition[]) {
  return definitions.map((d) => ({ name: d.name, description: d.description, input_schema: d.input_schema }));
}
