import type { ApprovalOverride, PolicyConfig } from '../governance/policy.ts';
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
  approval?: ApprovalOverride;
  executor: JsonObject & { kind: string };
}

export interface ExecutionEnvironmentRef {
  url: string;
  /** "env:NAME" */
  secret: string;
  timeout_ms?: number;
}

export interface ApprovalSettings {
  /** How long a parked call may wait for a decision (default 3600 s). */
  ttl_seconds?: number;
  /** The Slack channel approval requests go to. */
  slack_channel?: string;
  /** Slack user ids who may decide. */
  approvers?: string[];
}

/** One tenant's tools and policy: versioned, immutable once published (schema/manifest.v1.json). */
export interface Manifest {
  format: typeof MANIFEST_FORMAT;
  tenant: string;
  version: string;
  description?: string;
  profile: Profile;
  policy?: PolicyConfig;
  approvals?: ApprovalSettings;
  execution_environment?: ExecutionEnvironmentRef;
  tools: ManifestTool[];
}
