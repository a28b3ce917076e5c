import { ClientCallOutput } from '../client-call.ts';
import { defineTool, type ToolDefinition, type ToolDefinitionInput } from '../definition.ts';
import type { ToolExecutionContext, ToolExecutor, ToolOutput } from '../executor.ts';
import type { JsonObject } from '../json.ts';
import type { ExecutorKind } from './kind.ts';

/**
 * A tool whose execution lives elsewhere — in the agent's own client (a browser action, a
 * harness-rendered tool, a local MCP server). toolgate still looks it up, validates, checks
 * scopes and governs the call; instead of running it, the result hands the call back
 * (`client_call`) for the client to run.
 */
export class ClientToolExecutor implements ToolExecutor {
  readonly name: string;
  readonly definition: ToolDefinition;

  constructor(definition: ToolDefinitionInput) {
    this.definition = defineTool(definition);
    this.name = this.definition.name;
  }

  async execute(args: JsonObject, _context: ToolExecutionContext): Promise<ToolOutput> {
    return new ClientCallOutput({ name: this.name, arguments: args });
  }
}

/** `{"kind": "client"}`: the manifest pins the definition; the agent's client runs the call. */
export const clientExecutorKind: ExecutorKind = {
  kind: 'client',
  needsDefinition: true,
  check(config, path) {
    return Object.keys(config)
      .filter((key) => key !== 'kind')
      .map((key) => ({ path: `${path}.${key}`, message: 'is not a field of a client executor (it has only "kind": the client runs the call)' }));
  },
  baseDefinition: () => undefined,
  create: (definition) => new ClientToolExecutor(definition),
};
