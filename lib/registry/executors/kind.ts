import type { ConnectionAccess } from '../../connections/connection-access.ts';
import type { ResolveSecret } from '../../crypto/secrets.ts';
import type { Fetch } from '../../egress/fetch.ts';
import type { ToolDefinition } from '../definition.ts';
import type { ToolExecutor } from '../executor.ts';
import type { JsonObject } from '../json.ts';

/** A problem found in a manifest, located by JSON path (`$.tools[2].executor.url`). */
export interface ManifestProblem {
  path: string;
  message: string;
}

export interface ExecutorKindContext {
  builtins: ReadonlyMap<string, ToolExecutor>;
  /** How the manifest's "env:NAME" resolve: its tenant's grants. Without it, nothing resolves. */
  secrets?: ResolveSecret;
  /** How manifest executors reach the network: the gateway's egress policy. Without it, the policy with no exceptions. */
  egress?: Fetch;
  /** The calling user's tokens of the manifest's connections (`auth: {connection}`); without it such a tool is unavailable. */
  connections?: ConnectionAccess;
}

/** One `executor.kind` a manifest may use: how to check its entry and build its executor. */
export interface ExecutorKind {
  readonly kind: string;
  /** Whether manifest entries must bring their own description and input_schema. */
  readonly needsDefinition: boolean;
  check(config: JsonObject, path: string, toolName: string, context: ExecutorKindContext): ManifestProblem[];
  /** The definition the tool starts from before the manifest's fields apply (builtins have one). */
  baseDefinition(config: JsonObject, toolName: string, context: ExecutorKindContext): ToolDefinition | undefined;
  create(definition: ToolDefinition, config: JsonObject, context: ExecutorKindContext): ToolExecutor;
}
