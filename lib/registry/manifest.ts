import type { TierPolicy } from '../governance/policy.ts';
import type { IdempotencyMode, OutputLimits, ToolTier } from './definition.ts';
import type { JsonObject, JsonSchema } from './json.ts';

export const MANIFEST_FORMAT = 'toolgate.manifest/v1';

export type Profile = 'openai' | 'anthropic' | 'gemini';

export interface ManifestTool {
  name: string;
  description?: string;
  input_schema?: JsonSchema;
  tier?: ToolTier;
  scopes?: string[];
  tags?: string[];
  timeout_ms?: number;
  idempotency?: IdempotencyMode;
  output?: OutputLimits;
  executor: JsonObject & { kind: string };
}

export interface ExecutionEnvironmentRef {
  url: string;
  /** "env:NAME" */
  secret: string;
  timeout_ms?: number;
}

/** One tenant's tools and policy: versioned, immutable once published (schema/manifest.v1.json). */
export interface Manifest {
  format: typeof MANIFEST_FORMAT;
  tenant: string;
  version: string;
  description?: string;
  profile: Profile;
  policy?: Partial<TierPolicy>;
  execution_environment?: ExecutionEnvironmentRef;
  tools: ManifestTool[];
}
