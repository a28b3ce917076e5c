import { idempotencyModeOf, type ToolDefinition } from '../definition.ts';

/** MCP `tools/list` entries; annotations follow the tier (hints only, toolgate still governs). */
export function toMcpTools(definitions: ToolDefinition[]) {
  return definitions.map((d) => ({
    name: d.name,
    description: d.description,
    inputSchema: d.input_schema,
    // Clients check structured content against it (MCP: a tool with an outputSchema answers structuredContent).
    ...(d.output_schema !== undefined ? { outputSchema: d.output_schema } : {}),
    annotations: {
      readOnlyHint: d.tier === 'read',
      destructiveHint: d.tier !== 'read',
      idempotentHint: d.tier === 'read' || idempotencyModeOf(d) !== 'none',
    },
  }));
}
