import { builtinExecutorKind } from './builtin.ts';
import { httpExecutorKind } from './http.ts';
import type { ExecutorKind } from './kind.ts';

/** The executor kinds a manifest may name. */
export function defaultExecutorKinds(): Map<string, ExecutorKind> {
  return new Map([builtinExecutorKind, httpExecutorKind].map((kind) => [kind.kind, kind]));
}

export type { ExecutorKind, ExecutorKindContext, ManifestProblem } from './kind.ts';
