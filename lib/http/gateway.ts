import { AuditRecorder } from '../audit/recorder.ts';
import { Keyring } from '../connections/keyring.ts';
import { publicOriginFromEnv } from './public-url.ts';
import { leaseGraceFromEnv } from '../dispatch/lease.ts';
import { SecretGrants } from '../crypto/secret-grants.ts';
import { egressFetch, type EgressTransport } from '../egress/fetch.ts';
import { EgressPolicy } from '../egress/policy.ts';
import { DispatchMetrics } from '../dispatch/metrics.ts';
import { StoreTenantDirectory } from '../dispatch/store-tenant-directory.ts';
import { sweepApprovals } from '../dispatch/approvals/sweep.ts';
import type { GatewayServices } from '../dispatch/tenant-runtime.ts';
import { silentLogger, type EventSink, type Logger } from '../dispatch/events.ts';
import { DEFAULT_IDEMPOTENCY_TTL_MS } from '../idempotency/claim.ts';
import { defaultExecutorKinds } from '../registry/executors/index.ts';
import type { Manifest } from '../registry/manifest/manifest.ts';
import { refuseUngrantedSeeds, seedManifests } from '../registry/seed-manifests.ts';
import type { Store } from '../stores/store.ts';
import { slackConfigFromEnv } from '../slack/config.ts';
import { slackNotifierFor } from '../slack/tenant-notifier.ts';
import { createSchemaValidator } from '../validation/select-engine.ts';
import type { SchemaValidator } from '../validation/validator.ts';
import { createApp } from './app.ts';
import type { OriginPolicy } from './origin-policy.ts';
import type { Tracer } from '../telemetry/tracer.ts';

export interface GatewayConfig {
  store: Store;
  env: Readonly<Record<string, string | undefined>>;
  /** Manifests published and activated at start if their tenant has none active (see seedManifests). */
  manifests?: Manifest[];
  /** The manifests passed the publish checks in the deployment's tests: seeded as checked (see seedManifests). */
  manifestsChecked?: boolean;
  /** Applied to a tenant's manifest before its runtime is built, never stored. */
  overlay?: (manifest: Manifest) => Manifest;
  /** Which variables each tenant may name; default TOOLGATE_TENANT_SECRETS from `env` (throws SecretGrantsError if unreadable). */
  secretGrants?: SecretGrants;
  /** Where tenant executors may connect; default TOOLGATE_EGRESS_ALLOW from `env` (throws EgressAllowError if unreadable). */
  egressPolicy?: EgressPolicy;
  /** How this runtime checks and sends egress: Node's pins resolved addresses, Deno's resolves; default the URL only (Workers). */
  egressTransport?: EgressTransport;
  validator?: SchemaValidator;
  log?: Logger;
  events?: EventSink;
  bodyLimitBytes?: number;
  /** The limit of a published manifest's body (default TOOLGATE_MANIFEST_BODY_LIMIT_BYTES, else 32 MiB). */
  manifestBodyLimitBytes?: number;
  /** Serve GET /metrics (Node). */
  serveMetrics?: boolean;
  /** How long an isolate trusts its view of a tenant's active manifest (TOOLGATE_MANIFEST_CACHE_MS, default 5 s). */
  manifestCacheMs?: number;
  /** Host/Origin checks (see createApp); default: from `env`. */
  origins?: () => OriginPolicy;
  /** OpenTelemetry (lib/telemetry/config.ts tracerFromEnv); without it nothing is traced. */
  tracer?: Tracer;
  /**
   * Relay an upstream's requests of the client to the MCP client that made the call (default
   * true). Off where a response is delivered only once the request ends (Lambda behind API
   * Gateway): a request on its event stream would reach the client too late, so it is refused at once.
   */
  mcpReplyChannel?: boolean;
}

/**
 * Everything a runtime needs, assembled the same way everywhere: services, the tenants (active
 * manifests in the store), the Hono app, and `ready` (seed manifests in place). `fetch` waits for
 * `ready` before the first request. Building it does no I/O.
 */
export function createGateway(config: GatewayConfig) {
  const validator = config.validator ?? createSchemaValidator();
  const log = config.log ?? silentLogger;
  const secretGrants = config.secretGrants ?? SecretGrants.fromEnv(config.env);
  const egressPolicy = config.egressPolicy ?? EgressPolicy.fromEnv(config.env);
  refuseUngrantedSeeds(config.manifests ?? [], secretGrants);
  const slack = slackConfigFromEnv(config.env);
  const audit = new AuditRecorder(config.store, log);
  const services: GatewayServices = {
    validator,
    kinds: defaultExecutorKinds(),
    env: config.env,
    secretGrants,
    egress: egressFetch(egressPolicy, config.egressTransport),
    store: config.store,
    audit,
    metrics: new DispatchMetrics(),
    log,
    events: config.events,
    idempotencyTtlMs: Number(config.env.TOOLGATE_IDEMPOTENCY_TTL_MS ?? DEFAULT_IDEMPOTENCY_TTL_MS),
    leaseGraceMs: leaseGraceFromEnv(config.env.TOOLGATE_LEASE_GRACE_MS),
    defaultTimeoutMs: 5000,
    notifierFor: (manifest) => slackNotifierFor(manifest, slack, log),
    tracer: config.tracer,
    connectionKeys: Keyring.fromEnv(config.env),
    publicOrigin: publicOriginFromEnv(config.env),
  };
  const cacheMs = config.manifestCacheMs ?? Number(config.env.TOOLGATE_MANIFEST_CACHE_MS ?? 5000);
  const tenants = new StoreTenantDirectory(config.store, services, { cacheMs, overlay: config.overlay });
  const app = createApp({
    tenants,
    store: config.store,
    env: config.env,
    log,
    validator,
    confinement: { secretGrants, egress: egressPolicy },
    slack,
    bodyLimitBytes: config.bodyLimitBytes,
    manifestBodyLimitBytes: config.manifestBodyLimitBytes,
    metrics: config.serveMetrics ? services.metrics : undefined,
    origins: config.origins,
    tracer: config.tracer,
    connections: { keys: services.connectionKeys, egress: services.egress, secretGrants, env: config.env, audit, publicOrigin: services.publicOrigin },
    mcpReplyChannel: config.mcpReplyChannel,
  });
  // Seeding is I/O: it starts with the first request (or `ready`), so building the gateway does
  // none — Workers forbid I/O, timers and randomness at module scope, where the Worker builds it.
  let seeded: Promise<void> | undefined;
  const start = () => (seeded ??= seedManifests(config.store, audit, config.manifests ?? [], log, { checked: config.manifestsChecked }));
  const fetch = async (request: Request, ...rest: unknown[]): Promise<Response> => {
    await start();
    return app.fetch(request, ...(rest as []));
  };
  return {
    app,
    fetch,
    services,
    tenants,
    /** Sends due approval reminders and ends expired approvals (lib/dispatch/approvals/sweep.ts); runtimes call it on a schedule. */
    sweep: () => sweepApprovals(config.store, tenants, { log }),
    /** Resolves when the seed manifests are in place (starting the seeding if no request has yet). */
    get ready() {
      return start();
    },
  };
}
