import type { ApprovalOverride, PolicyConfig } from '../governance/policy.ts';
import type { IdempotencyMode, OutputLimits, ToolTier } from './definition.ts';
import type { JsonObject, JsonSchema } from './json.ts';

export const MANIFEST_FORMAT = 'toolgate.manifest/v1';

export type Profile = 'openai' | 'anthropic' | 'gemini';

export interface ManifestTool {
  name: string;
  description?: string;
  input_schema?: JsonSchema;
  output_schema?: JsonSchema;
  tier?: ToolTier;
  scopes?: string[];
  tags?: string[];
  timeout_ms?: number;
  idempotency?: IdempotencyMode;
  output?: OutputLimits;
  approval?: ApprovalOverride;
  /** When a call of this tool is reviewed: how many distinct approvers it needs. */
  approvals?: { quorum?: number };
  executor: JsonObject & { kind: string };
}

export interface ExecutionEnvironmentRef {
  url: string;
  /** "env:NAME" */
  secret: string;
  timeout_ms?: number;
  /** Commands may use the network; the exec-server must also be started with --allow-network. */
  network?: boolean;
}

export interface ApprovalSettings {
  /** How long a parked call may wait for a decision (default 3600 s). */
  ttl_seconds?: number;
  /** The Slack channel approval requests go to. */
  slack_channel?: string;
  /** Slack user ids who may decide. */
  approvers?: string[];
  /** How many distinct approvers a reviewed call needs (default 1; a tool or rule may ask for more). */
  quorum?: number;
  /** Remind (a Slack thread reply on the request) this long before an approval expires. */
  remind_before_seconds?: number;
  /** With a reminder, also post the request here (escalation), buttons included. */
  escalation_channel?: string;
  /** Slack user id → the principal it is: decisions in Slack then count as that principal (never the requester's own, never twice). */
  slack_principals?: Record<string, string>;
}

/**
 * Tools to take from another MCP server (`toolgate manifest import-mcp`): the import lists the
 * server's tools and pins each selected one into `tools` as an `mcp` executor entry, with the
 * description and input schema the server has at that moment.
 */
export interface McpImport {
  /** A name for the upstream, unique in the manifest; pinned entries carry it as `executor.server`. */
  server: string;
  /** The upstream's Streamable HTTP endpoint. */
  url: string;
  /** Sent with every request; "env:NAME" values come from the environment. */
  headers?: Record<string, string>;
  /** "all", or the upstream names of the tools to take. */
  tools: 'all' | string[];
  /** Put before every imported name (unless `rename` names it). */
  prefix?: string;
  /** Upstream name → toolgate name. */
  rename?: Record<string, string>;
  /** The tier of every imported tool (default `write`: deny by default). */
  tier?: ToolTier;
  /** Upstream name → tier, over `tier`. */
  tiers?: Record<string, ToolTier>;
  scopes?: string[];
  timeout_ms?: number;
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
  mcp_imports?: McpImport[];
  tools: ManifestTool[];
}
