import type { ToolDefinition } from '../registry/definition.ts';

/**
 * The built-in `search_tools` tool's definition. Small and import-free so a tenant runtime can
 * register it without loading the search code, which its handler imports on first use.
 */
export const SEARCH_TOOL_NAME = 'search_tools';
export const MAX_QUERY_CHARS = 500;
export const MAX_SEARCH_TOOL_RESULTS = 20;
export const DEFAULT_SEARCH_TOOL_RESULTS = 5;

export const SEARCH_TOOL_DEFINITION: ToolDefinition = {
  name: SEARCH_TOOL_NAME,
  description:
    'Find tools for a task among the many this gateway offers, most of which are not loaded yet. ' +
    'Describe what you need done in a few words (e.g. "create a calendar event", "list open pull requests"). ' +
    'Answers the full definitions of the best-matching tools you may call, best first; call one by its name.',
  input_schema: {
    type: 'object',
    properties: {
      query: { type: 'string', minLength: 1, maxLength: MAX_QUERY_CHARS, description: 'What you need a tool for, in plain words.' },
      limit: { type: 'integer', minimum: 1, maximum: MAX_SEARCH_TOOL_RESULTS, description: `How many tools to return (default ${DEFAULT_SEARCH_TOOL_RESULTS}).` },
    },
    required: ['query'],
    additionalProperties: false,
  },
  tier: 'read',
  scopes: [],
  tags: ['toolgate'],
  idempotency: 'none',
};
