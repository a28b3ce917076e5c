import { StaticTenantDirectory, type TenantDirectory } from '../dispatch/tenant-directory.ts';
import type { GatewayServices } from '../dispatch/tenant-runtime.ts';
import { silentLogger, type EventSink, type Logger } from '../dispatch/events.ts';
import { DEFAULT_IDEMPOTENCY_TTL_MS } from '../idempotency/claim.ts';
import { defaultExecutorKinds } from '../registry/executors/index.ts';
import type { Manifest } from '../registry/manifest.ts';
import type { Store } from '../stores/store.ts';
import { createSchemaValidator } from '../validation/select-engine.ts';
import type { SchemaValidator } from '../validation/validator.ts';
import { AuditRecorder } from '../audit/recorder.ts';
import { DispatchMetrics } from '../dispatch/metrics.ts';
import { slackConfigFromEnv } from '../slack/config.ts';
import { slackNotifierFor } from '../slack/tenant-notifier.ts';
import { createApp } from './app.ts';

export interface GatewayConfig {
  manifests: Manifest[];
  store: Store;
  env: Readonly<Record<string, string | undefined>>;
  validator?: SchemaValidator;
  log?: Logger;
  events?: EventSink;
  bodyLimitBytes?: number;
  /** Serve GET /metrics (Node). */
  serveMetrics?: boolean;
}

/** Everything a runtime needs, assembled the same way everywhere: services, tenants, the Hono app. */
export function createGateway(config: GatewayConfig) {
  const validator = config.validator ?? createSchemaValidator();
  const log = config.log ?? silentLogger;
  const slack = slackConfigFromEnv(config.env);
  const services: GatewayServices = {
    validator,
    kinds: defaultExecutorKinds(),
    env: config.env,
    store: config.store,
    audit: new AuditRecorder(config.store, log),
    metrics: new DispatchMetrics(),
    log,
    events: config.events,
    idempotencyTtlMs: Number(config.env.TOOLGATE_IDEMPOTENCY_TTL_MS ?? DEFAULT_IDEMPOTENCY_TTL_MS),
    defaultTimeoutMs: 5000,
    notifierFor: (manifest) => slackNotifierFor(manifest, slack, log),
  };
  const tenants: TenantDirectory = new StaticTenantDirectory(config.manifests, services);
  const app = createApp({
    metrics: config.serveMetrics ? services.metrics : undefined,
    tenants,
    store: config.store,
    env: config.env,
    log,
    bodyLimitBytes: config.bodyLimitBytes,
    slack,
    info: { validator: validator.engine },
  });
  return { app, services, tenants };
}
