import type { ToolDefinition } from '../registry/definition.ts';

/** The first scope the tool needs that the caller lacks, if any. `undefined` scopes = trusted in-process caller. */
export function missingScope(definition: ToolDefinition, scopes: ReadonlySet<string> | undefined): string | undefined {
  if (scopes === undefined) return undefined;
  return definition.scopes.find((scope) => !scopes.has(scope));
}
