import type { JsonSchema } from './json.ts';

/** read observes, write changes state, execute runs code (DESIGN.md "Tiers"). */
export type ToolTier = 'read' | 'write' | 'execute';

/** call: retries of one call replay; content: the same arguments in a thread run once; none. */
export type IdempotencyMode = 'call' | 'content' | 'none';

/** How a long output is cut for the model. The full output still reaches events and audit. */
export interface OutputLimits {
  max_chars?: number;
  max_lines?: number;
  /** head_tail keeps both ends and removes the middle; tail keeps the end. */
  mode?: 'head_tail' | 'tail';
}

/** What the model sees of a tool, plus what the gateway needs to govern it. */
export interface ToolDefinition {
  name: string;
  description: string;
  input_schema: JsonSchema;
  /** JSON Schema of the tool's structured content (MCP `outputSchema`), when it declares one. */
  output_schema?: JsonSchema;
  tier: ToolTier;
  scopes: string[];
  tags: string[];
  timeout_ms?: number;
  idempotency?: IdempotencyMode;
  output?: OutputLimits;
}

/** The fields a caller may leave out when defining a tool in code. */
export type ToolDefinitionInput = Pick<ToolDefinition, 'name'> & Partial<Omit<ToolDefinition, 'name'>>;

const EMPTY_OBJECT_SCHEMA = { type: 'object', properties: {} } as const;

/** Fills defaults: read tier, no scopes or tags, an object schema that accepts anything. */
export function defineTool(input: ToolDefinitionInput): ToolDefinition {
  return {
    description: '',
    input_schema: { ...EMPTY_OBJECT_SCHEMA },
    tier: 'read',
    scopes: [],
    tags: [],
    ...input,
  };
}

/** Defaults from DESIGN.md: read → none, write/execute → call. */
export function idempotencyModeOf(definition: ToolDefinition): IdempotencyMode {
  return definition.idempotency ?? (definition.tier === 'read' ? 'none' : 'call');
}

export const TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;
