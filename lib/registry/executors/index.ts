import { builtinExecutorKind } from './builtin.ts';
import { clientExecutorKind } from './client.ts';
import { httpExecutorKind } from './http.ts';
import type { ExecutorKind } from './kind.ts';
import { mcpExecutorKind } from './mcp.ts';

/** The executor kinds a manifest may name. */
export function defaultExecutorKinds(): Map<string, ExecutorKind> {
  return new Map([builtinExecutorKind, httpExecutorKind, mcpExecutorKind, clientExecutorKind].map((kind) => [kind.kind, kind]));
}

export type { ExecutorKind, ExecutorKindContext, ManifestProblem } from './kind.ts';
