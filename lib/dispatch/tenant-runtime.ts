import { firstUseGovernor } from '../connections/first-use.ts';
import { DEFAULT_APPROVAL_TTL_SECONDS } from '../governance/approvals.ts';
import type { FourEyesRules } from '../governance/four-eyes.ts';
import type { ApprovalNotifier } from '../governance/notifier.ts';
import { policyGovernor, type ApprovalOverride, type QuorumSettings } from '../governance/policy.ts';
import type { ExecutorKind } from '../registry/executors/kind.ts';
import type { Manifest } from '../registry/manifest/manifest.ts';
import { buildManifestRegistry } from '../registry/manifest/manifest-registry.ts';
import { Limiter } from '../limits/limiter.ts';
import type { Limit } from '../limits/limit.ts';
import { countersOf } from '../limits/store-counters.ts';
import { MemoryStore } from '../stores/memory.ts';
import type { ToolRegistry } from '../registry/registry.ts';
import type { AuditRecorder } from '../audit/recorder.ts';
import type { Store } from '../stores/store.ts';
import type { DispatchMetrics } from './metrics.ts';
import type { SchemaValidator } from '../validation/validator.ts';
import type { DispatchDeps } from './context.ts';
import type { EventSink, Logger } from './events.ts';
import { SchemaCache } from './schema-cache.ts';
import { UnusableVersionError, type ManifestVersions, type VersionTools } from './manifest-versions.ts';
import { tenantBuiltins } from '../tools/tenant-tools.ts';
import type { SecretGrants } from '../crypto/secret-grants.ts';
import { tenantSecretResolver } from '../crypto/tenant-secrets.ts';
import type { Fetch } from '../egress/fetch.ts';
import type { Keyring } from '../connections/keyring.ts';
import { lazyUserTokens } from '../connections/lazy-access.ts';
import type { ConnectionAccess } from '../connections/connection-access.ts';
import { TokenVerifier } from '../governance/token-verifier.ts';
import type { Tracer } from '../telemetry/tracer.ts';
import { upstreamAccess } from '../registry/executors/mcp.ts';
import { mcpFeaturesOf, type McpFeatures } from '../registry/mcp-upstream/features.ts';
import { SEARCH_TOOL_NAME } from '../search/search-tool-definition.ts';
import { searchToolExecutor } from '../search/search-tool-executor.ts';

/** What every tenant runtime of a gateway shares. */
export interface GatewayServices {
  validator: SchemaValidator;
  kinds: ReadonlyMap<string, ExecutorKind>;
  /** The runtime's environment or bindings: secrets (such as an exec-server's) resolve here, as `secretGrants` allow. */
  env: Readonly<Record<string, string | undefined>>;
  /** Which variables of `env` each tenant's manifests may name (TOOLGATE_TENANT_SECRETS). */
  secretGrants: SecretGrants;
  /** How tenant executors and exec-servers are reached: the gateway's egress policy (TOOLGATE_EGRESS_ALLOW). */
  egress: Fetch;
  store?: Store;
  audit?: AuditRecorder;
  metrics?: DispatchMetrics;
  log: Logger;
  events?: EventSink;
  idempotencyTtlMs: number;
  leaseGraceMs?: number;
  defaultTimeoutMs: number;
  /** OpenTelemetry spans for every call, when an OTLP endpoint is configured (lib/telemetry). */
  tracer?: Tracer;
  /** Who hears about a tenant's parked calls (Slack), if anyone. */
  notifierFor?: (manifest: Manifest) => ApprovalNotifier | undefined;
  /** The operator's keys for users' connection grants (TOOLGATE_CONNECTION_KEYS); without them (or a store) no grant is held. */
  connectionKeys?: Keyring;
  /** TOOLGATE_PUBLIC_URL: where connect links point (else the origin each request reached). */
  publicOrigin?: string;
}

/** One manifest version of one tenant, ready to dispatch. */
export interface TenantRuntime {
  manifest: Manifest;
  registry: ToolRegistry;
  deps: DispatchDeps;
  /** Verifies tokens from the tenant's identity provider (manifest `identity.oidc`); its key set is cached with the runtime. */
  tokens?: TokenVerifier;
  /** The upstream resources, resource templates and prompts the manifest pins, served on /mcp (none pinned: undefined). */
  features?: McpFeatures;
}

/** A version of the tenant's manifest as the store holds it (with the gateway's overlay applied). */
export interface StoredVersion {
  manifest: Manifest;
  /** It passed this gateway's publish checks (its store record says so): schemas compile without checking them again. */
  checked: boolean;
}

export interface TenantRuntimeOptions {
  /** The manifest passed this gateway's publish checks (its store record says so): schemas compile without checking them again. */
  schemasChecked?: boolean;
  /** Reads another version of the tenant's manifest (an approved call runs the one it was parked under); without it, none is found. */
  loadVersion?: (version: string) => Promise<StoredVersion | undefined>;
}

/**
 * A manifest's tools as this gateway builds them now: with its tenant's secret grants and the
 * gateway's egress as they stand, whichever version it is, so an operator's revocation also
 * holds for a call approved under an older version.
 */
export function buildVersionTools(manifest: Manifest, services: GatewayServices, checked: boolean): VersionTools {
  const secrets = tenantSecretResolver(manifest.tenant, services.secretGrants, services.env);
  const { coding, builtins } = tenantBuiltins(manifest, { secrets, egress: services.egress });
  const connections = connectionAccess(manifest, services, secrets);
  const registry = buildManifestRegistry(manifest, services.kinds, { builtins, secrets, egress: services.egress, ...(connections ? { connections } : {}) }, coding);
  // A tenant's own tool of that name wins, as over any built-in.
  if (manifest.tool_search && !registry.has(SEARCH_TOOL_NAME)) registry.register(searchToolExecutor({ manifest, registry, store: services.store, log: services.log }));
  return { manifest, registry, schemas: new SchemaCache(services.validator, { checked }) };
}

/** The tenant's users' connection tokens, when the manifest declares connections and the gateway can hold grants. */
function connectionAccess(manifest: Manifest, services: GatewayServices, secrets: ReturnType<typeof tenantSecretResolver>): ConnectionAccess | undefined {
  if (!manifest.connections || !services.store) return undefined;
  return lazyUserTokens(manifest, {
    store: services.store,
    ...(services.connectionKeys ? { keys: services.connectionKeys } : {}),
    secrets,
    fetch: services.egress,
    audit: services.audit,
    ...(services.publicOrigin ? { publicOrigin: services.publicOrigin } : {}),
    log: services.log,
  });
}

function manifestVersions(serving: VersionTools, services: GatewayServices, options: TenantRuntimeOptions): ManifestVersions {
  return {
    serving,
    load: async (version) => {
      const stored = await options.loadVersion?.(version);
      if (!stored) return undefined;
      try {
        return buildVersionTools(stored.manifest, services, stored.checked);
      } catch (error) {
        throw new UnusableVersionError(version, error);
      }
    },
  };
}

export function buildTenantRuntime(manifest: Manifest, services: GatewayServices, options: TenantRuntimeOptions = {}): TenantRuntime {
  const serving = buildVersionTools(manifest, services, options.schemasChecked ?? false);
  const registry = serving.registry;
  services.log('tools.registered', { tenant: manifest.tenant, version: manifest.version, tools: registry.size });
  services.metrics?.registrySize(manifest.tenant, registry.size);
  const oidc = manifest.identity?.oidc;
  return {
    manifest,
    registry,
    tokens: oidc ? new TokenVerifier(manifest.tenant, oidc, services.egress) : undefined,
    features: mcpFeaturesOf(manifest, upstreamAccess({ secrets: tenantSecretResolver(manifest.tenant, services.secretGrants, services.env), fetch: services.egress })),
    deps: {
      registry,
      schemas: serving.schemas,
      versions: manifestVersions(serving, services, options),
      governor: firstUseGovernor(policyGovernor(manifest.policy, approvalOverrides(manifest), approvalQuorums(manifest)), manifest, services.store),
      ...(manifest.limits?.length ? { limiter: tenantLimiter(manifest, services) } : {}),
      approvals: services.store ? approvalSettings(manifest, services) : undefined,
      store: services.store,
      audit: services.audit,
      metrics: services.metrics,
      idempotencyTtlMs: services.idempotencyTtlMs,
      leaseGraceMs: services.leaseGraceMs,
      defaultTimeoutMs: services.defaultTimeoutMs,
      events: services.events,
      log: services.log,
      now: Date.now,
      tracer: services.tracer,
    },
  };
}

/** The manifest's limits, counted in the gateway's store (in this process only, without one). */
function tenantLimiter(manifest: Manifest, services: GatewayServices): Limiter {
  const costs = new Map(manifest.tools.flatMap((tool) => (tool.cost ? [[tool.name, tool.cost] as const] : [])));
  const observe = (limit: Limit, refused: boolean) => services.metrics?.limitChecked(manifest.tenant, limit.id, refused);
  return new Limiter(manifest.limits ?? [], countersOf(services.store ?? new MemoryStore()), { costs, observe });
}

function approvalOverrides(manifest: Manifest): Map<string, ApprovalOverride> {
  return new Map(manifest.tools.flatMap((tool) => (tool.approval ? [[tool.name, tool.approval] as const] : [])));
}

function approvalQuorums(manifest: Manifest): QuorumSettings {
  const tools = new Map(manifest.tools.flatMap((tool) => (tool.approvals?.quorum ? [[tool.name, tool.approvals.quorum] as const] : [])));
  return { default: manifest.approvals?.quorum, tools };
}

/** The manifest's four-eyes settings, only those it states (they are stored on each approval). */
function fourEyesRules(manifest: Manifest): FourEyesRules {
  const { same_person_as_creator: creator, confusable_names: names } = manifest.approvals ?? {};
  return { ...(creator !== undefined ? { same_person_as_creator: creator } : {}), ...(names ? { confusable_names: names } : {}) };
}

function approvalSettings(manifest: Manifest, services: GatewayServices): NonNullable<DispatchDeps['approvals']> {
  const remind = manifest.approvals?.remind_before_seconds;
  return {
    ttlMs: (manifest.approvals?.ttl_seconds ?? DEFAULT_APPROVAL_TTL_SECONDS) * 1000,
    notifier: services.notifierFor?.(manifest),
    ...(remind ? { remindBeforeMs: remind * 1000 } : {}),
    fourEyes: fourEyesRules(manifest),
  };
}
