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
  /** A key minted by another principal counts as that principal for four-eyes: unset, minter and minted (and their chain); true, also keys minted by one principal; false, names only (lib/governance/four-eyes.ts). */
  same_person_as_creator?: boolean;
  /** "refuse": a principal with a confusable name (mixed scripts, invisible characters) cannot approve, and its calls are denied instead of parked; "mark" (default): shown marked. */
  confusable_names?: 'mark' | 'refuse';
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

/** Asymmetric JWS algorithms a tenant's tokens may use (never `none`, never HS*: the key set is public). */
export const TOKEN_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519'] as const;
export type TokenAlgorithm = (typeof TOKEN_ALGORITHMS)[number];

/**
 * Bearer JWTs from the tenant's identity provider (OIDC / OAuth 2.0 access tokens), verified
 * against the issuer's published key set. A token only ever signs in to this tenant.
 */
export interface OidcSettings {
  /** The `iss` the tokens carry, exactly (e.g. "https://acme.eu.auth0.com/"). */
  issuer: string;
  /** The `aud` the tokens must carry: the API identifier registered for the gateway. */
  audience: string;
  /** The issuer's JWKS; default: `jwks_uri` from `${issuer}/.well-known/openid-configuration`. */
  jwks_uri?: string;
  /** The claim naming the principal (default "sub"). */
  principal_claim?: string;
  /** The claim holding the scopes: a space-separated string or an array (default "scope", then "scp"). */
  scopes_claim?: string;
  /** Allowed signing algorithms (default: every asymmetric one). */
  algorithms?: TokenAlgorithm[];
}

export interface IdentitySettings {
  oidc?: OidcSettings;
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
  /** Who may sign in besides API keys: tokens from the tenant's identity provider. */
  identity?: IdentitySettings;
  tools: ManifestTool[];
}
