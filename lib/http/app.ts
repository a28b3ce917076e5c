import { Hono, type Context } from 'hono';
import type { TenantDirectory } from '../dispatch/tenant-directory.ts';
import { silentLogger, type Logger } from '../dispatch/events.ts';
import type { DispatchMetrics } from '../dispatch/metrics.ts';
import { consoleRoutes } from '../console/routes.ts';
import { ApiKeyResolver } from '../governance/api-keys.ts';
import { ApiKeyLifecycle } from '../governance/key-lifecycle.ts';
import { StoreUnavailableError, type Store } from '../stores/store.ts';
import { requestLimits } from './request-limits.ts';
import { requireCredential, tenantRuntime } from './auth.ts';
import { apiKeyAuthenticator, credentialAuthenticator } from './authenticator.ts';
import { mcpCors } from './cors.ts';
import { publicOrigin, publicOriginFromEnv } from './public-url.ts';
import { isTenantId, protectedResourceRoutes, RESOURCE_METADATA_PATH, resourceMetadataUrl } from './routes/protected-resource.ts';
import { tokenAuthenticator } from './token-authenticator.ts';
import { apiBodyLimits, requestBodyLimit } from './body-limit.ts';
import { manifestBodyLimitFromEnv } from './manifest-body.ts';
import type { GatewayEnv } from './env.ts';
import { errorResponse } from './errors.ts';
import { InputError } from './input-error.ts';
import { originGuard } from './origin-guard.ts';
import { originPolicyFromEnv, type OriginPolicy } from './origin-policy.ts';
import { adminRoutes } from './routes/admin.ts';
import { approvalRoutes } from './routes/approvals.ts';
import { auditRoutes } from './routes/audit.ts';
import { callRoutes } from './routes/calls.ts';
import { mcpRoutes } from './routes/mcp.ts';
import { slackRoutes } from './routes/slack.ts';
import type { ConfinementChecks } from '../registry/manifest/confinement.ts';
import type { SlackConfig } from '../slack/config.ts';
import type { SchemaValidator } from '../validation/validator.ts';
import { dispatchRoutes } from './routes/dispatch.ts';
import { connectionRoutes } from './routes/connections.ts';
import { toolRoutes } from './routes/tools.ts';
import { tracingMiddleware } from './tracing.ts';
import type { Tracer } from '../telemetry/tracer.ts';
import type { ConnectServices } from '../connections/connect-routes.ts';

export const DEFAULT_BODY_LIMIT_BYTES = 1024 * 1024;

const fixed = (policy: OriginPolicy) => () => policy;

export interface AppOptions {
  tenants: TenantDirectory;
  /** Where API keys, idempotency records and audit envelopes live. */
  store: Store;
  /** The runtime's environment or bindings: `env:NAME` secrets resolve here. */
  env: Readonly<Record<string, string | undefined>>;
  log?: Logger;
  bodyLimitBytes?: number;
  /** The limit of a published manifest's body (as sent and decompressed); default TOOLGATE_MANIFEST_BODY_LIMIT_BYTES from `env`, else 32 MiB. */
  manifestBodyLimitBytes?: number;
  /** Serves GET /metrics (Prometheus text) when given. */
  metrics?: DispatchMetrics;
  /** Checks manifests published through the admin routes. */
  validator: SchemaValidator;
  /** The operator's secret grants and egress policy, which published manifests must keep to. */
  confinement: ConfinementChecks;
  /** Slack settings, when approvals are decided in Slack. */
  slack?: SlackConfig;
  /** Shown by /healthz. */
  info?: Record<string, string>;
  /** Host/Origin checks for /v1 and /mcp (read per request); default: TOOLGATE_ALLOWED_HOSTS/ORIGINS from `env`. */
  origins?: () => OriginPolicy;
  /** OpenTelemetry: a server span per request, continuing the caller's traceparent (lib/telemetry). */
  tracer?: Tracer;
  /** Users' connections (lib/connections): the connect pages' keys, egress and grants; without it, /connect answers 404. */
  connections?: Omit<ConnectServices, 'store' | 'tenants'>;
  /** Relay upstreams' requests of the client to MCP clients (default true; see GatewayConfig). */
  mcpReplyChannel?: boolean;
}

/** The gateway: the same Hono app on every runtime; entrypoints only build its options. */
export function createApp(options: AppOptions) {
  const log = options.log ?? silentLogger;
  const maxSize = options.bodyLimitBytes ?? DEFAULT_BODY_LIMIT_BYTES;
  const manifestMaxSize = options.manifestBodyLimitBytes ?? manifestBodyLimitFromEnv(options.env.TOOLGATE_MANIFEST_BODY_LIMIT_BYTES);
  const app = new Hono<GatewayEnv>();
  if (options.tracer) app.use('*', tracingMiddleware(options.tracer));

  app.get('/healthz', (c) => c.json({ status: 'ok', store: options.store.name, validator: options.validator.engine, ...options.info }));
  if (options.metrics) {
    const metrics = options.metrics;
    const token = options.env.TOOLGATE_METRICS_TOKEN;
    app.get('/metrics', (c) => {
      if (token && c.req.header('authorization') !== `Bearer ${token}`) return errorResponse(c, 401, 'unauthorized', 'send "Authorization: Bearer $TOOLGATE_METRICS_TOKEN"');
      return c.text(metrics.render(), 200, { 'content-type': 'text/plain; version=0.0.4' });
    });
  }

  app.use('/v1/*', apiBodyLimits(maxSize, manifestMaxSize));
  // Slack's own signature authenticates interactions; registered before the API-key check, and
  // before the Host/Origin check (Slack's servers send no Origin; a tunnel's Host is not ours).
  app.route('/v1/slack', slackRoutes(options.store, options.tenants, options.slack, options.env));
  const origins = options.origins ?? fixed(originPolicyFromEnv(options.env));
  const withOrigins = originGuard(origins);
  app.use('/v1/*', withOrigins);
  const keys = new ApiKeyResolver(options.store);
  // Revoking or rotating through this app forgets the key in this isolate's cache at once.
  const keyLifecycle = new ApiKeyLifecycle(options.store, { resolver: keys });
  // One authenticator for the API, /mcp and the console: API keys, and tokens from a tenant's identity provider.
  const authenticator = credentialAuthenticator({ keys: apiKeyAuthenticator(keys), tokens: tokenAuthenticator(options.tenants) });
  const withCredential = requireCredential(authenticator);
  app.use('/v1/*', withCredential);
  // Operator routes work before a tenant has an active manifest (publishing its first one).
  app.route('/v1/admin', adminRoutes(options.store, options.tenants, options.validator, options.confinement, keyLifecycle, log, manifestMaxSize));
  app.route('/v1/audit', auditRoutes(options.store));
  const withRuntime = tenantRuntime(options.tenants);
  for (const path of ['/v1/tools/*', '/v1/tools', '/v1/dispatch', '/v1/approvals/*', '/v1/approvals', '/v1/calls/*']) app.use(path, withRuntime);
  // MCP clients reach the same tools, with the same credentials, body limit and pipeline; browser
  // clients of allowed origins get CORS (answered before the guard, so a preflight gets its grant).
  const pinnedOrigin = publicOriginFromEnv(options.env);
  const metadataUrl = (c: Context, tenant: string) => (isTenantId(tenant) ? resourceMetadataUrl(publicOrigin(pinnedOrigin, c.req.url), tenant) : undefined);
  const withCors = mcpCors(origins);
  const withRequestLimits = requestLimits();
  app.use('/v1/dispatch', withRequestLimits);
  app.use('/mcp', withCors, withOrigins, requestBodyLimit(maxSize), withCredential, withRuntime, withRequestLimits);
  app.use('/mcp/:tenant', withCors, withOrigins, requestBodyLimit(maxSize), requireCredential(authenticator, { tenantParam: 'tenant', resourceMetadata: metadataUrl }), withRuntime, withRequestLimits);
  app.route('/mcp', mcpRoutes(options.env, { resourceMetadata: metadataUrl, tenants: options.tenants, publicOrigin: (c) => publicOrigin(pinnedOrigin, c.req.url), replyChannel: options.mcpReplyChannel ?? true }));
  app.use(`${RESOURCE_METADATA_PATH}/*`, withCors, withOrigins);
  app.route(RESOURCE_METADATA_PATH, protectedResourceRoutes(options.tenants, pinnedOrigin));
  app.route('/v1/tools', toolRoutes());
  app.route('/v1/dispatch', dispatchRoutes(options.env));
  app.route('/v1/approvals', approvalRoutes(options.store, options.env));
  app.route('/v1/calls', callRoutes(options.store));
  const connectServices: ConnectServices | undefined = options.connections ? { ...options.connections, store: options.store, tenants: options.tenants } : undefined;
  if (connectServices) {
    const services = connectServices;
    // The connect pages and their crypto load on first use: most requests never need them.
    const place = (c: Context) => ({ tenant: c.req.param('tenant') ?? '', connection: c.req.param('connection') ?? '' });
    app.get('/connect/:tenant/:connection', async (c) => (await import('../connections/connect-routes.ts')).startConsent(c, services, place(c)));
    app.get('/connect/:tenant/:connection/callback', async (c) => (await import('../connections/connect-routes.ts')).finishConsent(c, services, place(c)));
    app.route('/v1/connections', connectionRoutes(services));
  }
  // The operator console: browser pages signed in through the same authenticator.
  app.route('/console', consoleRoutes({ store: options.store, tenants: options.tenants, authenticator, keyLifecycle, env: options.env, origins, log, ...(connectServices ? { connections: connectServices } : {}) }));

  app.notFound((c) => errorResponse(c, 404, 'not_found', `no route for ${c.req.method} ${new URL(c.req.url).pathname}`));
  app.onError((error, c) => {
    // A parameter a route cannot use (params.ts): the caller's mistake, said as such.
    if (error instanceof InputError) return errorResponse(c, error.status, error.status === 404 ? 'not_found' : 'invalid_request', error.message);
    log('http.error', { path: new URL(c.req.url).pathname, error: error.message });
    // A store outage outside dispatch (audit reads, approvals) is the service being unavailable, not a bug.
    if (error instanceof StoreUnavailableError) return errorResponse(c, 503, 'unavailable', error.message);
    return errorResponse(c, 500, 'internal', 'internal error; the gateway logged the details');
  });
  return app;
}
