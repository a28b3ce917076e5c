import type { ApprovalOverride, PolicyConfig } from '../../governance/policy.ts';
import type { ManifestLimit } from '../../limits/limit.ts';
import type { IdempotencyMode, OutputLimits, ToolTier } from '../definition.ts';
import type { JsonObject, JsonSchema } from '../json.ts';

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
  /** What one call counts against limits with `weight: "cost"` (default 1). */
  cost?: number;
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
 * description and input schema the server has at that moment; likewise its resources, resource
 * templates and prompts into `resources`, `resource_templates` and `prompts`.
 */
export interface McpImport {
  /** A name for the upstream, unique in the manifest; pinned entries carry it as `executor.server`. */
  server: string;
  /** The upstream's Streamable HTTP endpoint. */
  url: string;
  /** Sent with every request; "env:NAME" values come from the environment. */
  headers?: Record<string, string>;
  /** "all", or the upstream names of the tools to take (none when absent). */
  tools?: 'all' | string[];
  /** "all", or the URIs of the upstream's resources to take. */
  resources?: 'all' | string[];
  /** "all", or the URI templates of the upstream's resource templates to take. */
  resource_templates?: 'all' | string[];
  /** "all", or the upstream names of the prompts to take. */
  prompts?: 'all' | string[];
  /** Put before every imported prompt's name. */
  prompt_prefix?: string;
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

/**
 * Where a pinned resource, resource template or prompt is read: the upstream MCP server an
 * import found it on, reached as its tools are (the same headers, secrets and egress).
 */
export interface McpSource {
  kind: 'mcp';
  /** The `mcp_imports` entry that pinned it; importing again replaces it. */
  server?: string;
  url: string;
  headers?: Record<string, string>;
  /** The upstream's protocol revision, learnt at import. */
  protocol?: string;
  /** The upstream answers `completion/complete` (it declared `completions`). */
  completions?: boolean;
}

/** What toolgate decides about a pinned resource, template or prompt, as for a tool: who may use it, its tier, how long it may take. */
export interface PinnedFeatureRules {
  scopes?: string[];
  /** Default `read`. */
  tier?: ToolTier;
  timeout_ms?: number;
}

/** MCP's descriptive fields of a resource, template or prompt, as the upstream listed them. */
export interface PinnedFeatureInfo {
  title?: string;
  description?: string;
  icons?: JsonObject[];
  annotations?: JsonObject;
}

/** A resource of an upstream, offered on `resources/list` and read through `resources/read`. */
export interface ManifestResource extends PinnedFeatureInfo, PinnedFeatureRules {
  uri: string;
  name: string;
  mime_type?: string;
  size?: number;
  source: McpSource;
}

/** A resource template of an upstream (RFC 6570): every URI it matches is read from the upstream. */
export interface ManifestResourceTemplate extends PinnedFeatureInfo, PinnedFeatureRules {
  uri_template: string;
  name: string;
  mime_type?: string;
  source: McpSource;
}

export interface PromptArgument {
  name: string;
  title?: string;
  description?: string;
  required?: boolean;
}

/** A prompt of an upstream, under toolgate's name (`source.prompt` is the upstream's). */
export interface ManifestPrompt extends PinnedFeatureInfo, PinnedFeatureRules {
  name: string;
  arguments?: PromptArgument[];
  source: McpSource & { prompt: string };
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

/**
 * An OAuth 2.0 client registration at a provider (lib/connections): tools whose executor says
 * `"auth": {"connection": name}` send the calling principal's own token from it.
 */
export interface ConnectionSettings {
  /** authorization_code (default): each user consents once at /connect; token_exchange: the caller's sign-in token is exchanged (RFC 8693). */
  grant?: 'authorization_code' | 'token_exchange';
  /** OIDC discovery / RFC 8414 metadata: endpoints not written here come from it; the callback's `iss` must equal it. */
  issuer?: string;
  authorization_endpoint?: string;
  token_endpoint?: string;
  revocation_endpoint?: string;
  client_id: string;
  /** "env:NAME", granted to the tenant like every secret. */
  client_secret?: string;
  client_auth?: 'client_secret_basic' | 'client_secret_post';
  scopes?: string[];
  /** PKCE S256 (default true). */
  pkce?: boolean;
  audience?: string;
  resource?: string;
  authorization_params?: Record<string, string>;
  /** A principal's first call through the connection (after each consent) waits for an approver (first-use.ts). */
  approval_on_first_use?: boolean;
}

export interface IdentitySettings {
  oidc?: OidcSettings;
}

/** One tenant's tools and policy: versioned, immutable once published (schema/manifest.v1.json). */
/** Manifest `tool_search`: present, the tenant's tools include the built-in `search_tools`. */
export interface ToolSearchSettings {
  /** Tools always sent in full: never marked deferred (defer=1), and listed over MCP when `mcp_list` is "always_loaded". */
  always_loaded?: string[];
  /** MCP tools/list: every tool (default), or only the always_loaded ones plus search_tools. */
  mcp_list?: 'all' | 'always_loaded';
  /** Tools per page of MCP tools/list (default 500). */
  page_size?: number;
}

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
  /** OAuth connections tools act through as the end user (lib/connections). */
  connections?: Record<string, ConnectionSettings>;
  /** Who may sign in besides API keys: tokens from the tenant's identity provider. */
  identity?: IdentitySettings;
  /** Tool search for large catalogs (lib/search): search_tools, what is never deferred, MCP listing. */
  tool_search?: ToolSearchSettings;
  tools: ManifestTool[];
  /** Quotas and rate limits (lib/limits). */
  limits?: ManifestLimit[];
  /** Upstream resources, templates and prompts an import pinned: served on `/mcp` under the same scopes, policy and audit as tools. */
  resources?: ManifestResource[];
  resource_templates?: ManifestResourceTemplate[];
  prompts?: ManifestPrompt[];
}
