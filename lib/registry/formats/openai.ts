import type { ToolDefinition } from '../definition.ts';

/** Chat Completions function tools. */
export function toOpenAITools(definitions: ToolDefinition[]) {
  return definitions.map((d) => ({
    type: 'function' as const,
    function: { name: d.name, description: d.description, parameters: d.input_schema },
  }));
}
