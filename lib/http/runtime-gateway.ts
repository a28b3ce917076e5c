import { SecretGrantsError } from '../crypto/secret-grants.ts';
import { jsonLineLogger, type Logger } from '../dispatch/events.ts';
import { EgressAllowError } from '../egress/allowlist.ts';
import type { EgressTransport } from '../egress/fetch.ts';
import { createApiKey, type Principal } from '../governance/api-keys.ts';
import type { Manifest } from '../registry/manifest/manifest.ts';
import { remoteStoreFromEnv, storeKindFromEnv, type StoreKind } from '../stores/config.ts';
import type { Store } from '../stores/store.ts';
import { demoOverlay } from './demo-overlay.ts';
import { createGateway } from './gateway.ts';
import type { OriginPolicy } from './origin-policy.ts';
import { tracerFromEnv } from '../telemetry/config.ts';
import type { ExportSchedule } from '../telemetry/tracer.ts';

export type RuntimeName = 'workers' | 'lambda' | 'deno' | 'node';

type Env = Readonly<Record<string, string | undefined>>;

const LABEL: Record<RuntimeName, string> = { workers: 'Cloudflare Workers', lambda: 'AWS Lambda', deno: 'Deno', node: 'Node' };
/** Where state lives when TOOLGATE_STORE is not set (Workers must say). */
const DEFAULT_STORE: Record<RuntimeName, StoreKind | undefined> = { workers: undefined, lambda: 'dynamodb', deno: 'upstash', node: 'sqlite' };

/**
 * When spans are exported: Workers and Lambda at the end of each request (Workers hand it to
 * waitUntil; Lambda starts it as the response leaves, and a frozen environment finishes it when
 * it thaws), since neither runs timers between requests; Node and Deno on a background timer.
 */
const EXPORT_SCHEDULE: Record<RuntimeName, ExportSchedule> = { workers: 'request', lambda: 'request', deno: 'interval', node: 'interval' };

/**
 * The demo's two principals. TOOLGATE_DEMO_KEY is the agent's: it calls tools (the demo's need no
 * scope), reads its own calls and approvals, and nothing more, so it can neither approve its own
 * calls nor mint a key that could. TOOLGATE_DEMO_ADMIN_KEY is the operator's: it approves, manages
 * keys and manifests and reads the audit trail.
 */
export const DEMO_AGENT = { principal: 'demo-user', scopes: [] as string[] };
export const DEMO_ADMIN = { principal: 'demo-admin', scopes: ['admin', 'approvals:read', 'approvals:decide', 'audit:read'] };

export interface RuntimeGatewayConfig {
  runtime: RuntimeName;
  env: Env;
  /** Manifests the deployment carries: published and activated at start if their tenant has none. */
  manifests?: Manifest[];
  /** The manifests are the bundled ones whose publish checks the project's tests run (the demo): seeded as checked. */
  manifestsChecked?: boolean;
  /** A store built by the entrypoint (Node's SQLite); otherwise TOOLGATE_STORE decides. */
  store?: Store;
  log?: Logger;
  /** How the runtime checks egress: Node and Lambda pin resolved addresses (lib/cli/node-egress.ts), Deno resolves; Workers check the URL only. */
  egressTransport?: EgressTransport;
  /** Host/Origin checks, for entrypoints that know their address (serve, Deno); default: TOOLGATE_ALLOWED_HOSTS/ORIGINS. */
  origins?: () => OriginPolicy;
}

export class RuntimeConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RuntimeConfigError';
  }
}

function storeFor(config: RuntimeGatewayConfig): Store {
  if (config.store) return config.store;
  const kind = storeKindFromEnv(config.env, DEFAULT_STORE[config.runtime] ?? 'memory');
  if (config.env.TOOLGATE_STORE === undefined && DEFAULT_STORE[config.runtime] === undefined) {
    throw new RuntimeConfigError(`TOOLGATE_STORE is not set: on ${LABEL[config.runtime]} set it to upstash or dynamodb (wrangler.toml [vars]), with that store's variables as secrets`);
  }
  return remoteStoreFromEnv(kind, config.env, LABEL[config.runtime]);
}

/**
 * Whether this process is a Lambda execution environment: Lambda sets both variables in every one
 * (AWS_EXECUTION_ENV is e.g. "AWS_Lambda_nodejs22.x"; ECS and CloudShell set it to other values).
 */
function insideLambda(env: Env): boolean {
  return Boolean(env.AWS_LAMBDA_FUNCTION_NAME) || (env.AWS_EXECUTION_ENV ?? '').startsWith('AWS_Lambda_');
}

/**
 * A Lambda function cannot reach an exec-server on its own loopback: say so instead of timing out
 * later. Only inside Lambda: the handler invoked on a developer's machine (tests, a local invoke)
 * shares that machine's loopback, where the exec-server does listen.
 */
function refuseWhatTheRuntimeCannotDo(config: RuntimeGatewayConfig, manifests: Manifest[]): void {
  if (config.runtime !== 'lambda' || !insideLambda(config.env)) return;
  for (const manifest of manifests) {
    const url = manifest.execution_environment?.url;
    if (url && ['127.0.0.1', 'localhost', '[::1]'].includes(new URL(url).hostname)) {
      throw new RuntimeConfigError(`tenant "${manifest.tenant}": execution_environment ${url} is on this machine, and a Lambda function has no local exec-server: run \`toolgate exec-server\` on a host the function can reach and put its URL in the manifest (or TOOLGATE_DEMO_EXEC_URL for the demo)`);
    }
  }
}

/**
 * The gateway as every entrypoint builds it from its runtime's env (Workers bindings, Lambda's
 * process.env, Deno.env): the store from TOOLGATE_STORE, the bundled manifests seeded, the demo's
 * development settings overlaid, and TOOLGATE_DEMO_KEY (the agent's) and TOOLGATE_DEMO_ADMIN_KEY (the
 * operator's) registered for the first bundled tenant.
 * Throws RuntimeConfigError for what the runtime cannot do or a missing variable.
 */
export function createRuntimeGateway(config: RuntimeGatewayConfig) {
  const env = config.env;
  const overlay = demoOverlay(env, config.manifests?.[0]?.tenant);
  refuseWhatTheRuntimeCannotDo(config, (config.manifests ?? []).map(overlay));
  const store = storeFor(config);
  const log = config.log ?? jsonLineLogger;
  // OTEL_EXPORTER_OTLP_ENDPOINT and the standard variables; undefined (nothing traced) without an endpoint.
  const tracer = tracerFromEnv(env, { schedule: EXPORT_SCHEDULE[config.runtime], log });
  const gateway = operatorConfigured(() =>
    createGateway({ store, env, manifests: config.manifests, manifestsChecked: config.manifestsChecked, overlay, log, serveMetrics: config.runtime === 'node', mcpReplyChannel: config.runtime !== 'lambda', egressTransport: config.egressTransport, origins: config.origins, tracer }),
  );
  const tenant = config.manifests?.[0]?.tenant;
  const demoKeys = tenant ? demoKeysOf(env, tenant) : [];
  // Started by the first request (or `ready`): construction stays free of I/O (see createGateway).
  let started: Promise<void> | undefined;
  const start = () => (started ??= Promise.all([gateway.ready, ...demoKeys.map(([principal, key]) => createApiKey(store, principal, key))]).then(() => undefined));
  return {
    app: gateway.app,
    services: gateway.services,
    tenants: gateway.tenants,
    store,
    /** The OpenTelemetry tracer, if tracing is on: Node flushes it on shutdown. */
    tracer,
    get ready() {
      return start();
    },
    async fetch(request: Request, ...rest: unknown[]): Promise<Response> {
      await start();
      return gateway.app.fetch(request, ...(rest as []));
    },
    /** The approvals sweep (reminders, expiry), for the runtime's schedule: a cron, a timer. */
    async sweep() {
      await start();
      return gateway.sweep();
    },
  };
}

/** The demo keys the environment sets, each with its principal; one key for both would let the agent approve its own calls. */
function demoKeysOf(env: Env, tenant: string): Array<[Principal, string]> {
  const { TOOLGATE_DEMO_KEY: agent, TOOLGATE_DEMO_ADMIN_KEY: admin } = env;
  if (agent && agent === admin) throw new RuntimeConfigError("TOOLGATE_DEMO_ADMIN_KEY must differ from TOOLGATE_DEMO_KEY (the agent's key)");
  return ([[DEMO_AGENT, agent], [DEMO_ADMIN, admin]] as const).flatMap(([who, key]): Array<[Principal, string]> => (key ? [[{ tenant, ...who }, key]] : []));
}

/** TOOLGATE_TENANT_SECRETS and TOOLGATE_EGRESS_ALLOW are the operator's: what is wrong with them is a configuration error. */
function operatorConfigured<T>(build: () => T): T {
  try {
    return build();
  } catch (error) {
    if (error instanceof SecretGrantsError || error instanceof EgressAllowError) throw new RuntimeConfigError(error.message);
    throw error;
  }
}

/** For entrypoints that can only answer requests (Workers): a configuration error becomes a clear 503 on every request. */
export function misconfiguredFetch(error: unknown): (request: Request) => Response {
  const message = error instanceof Error ? error.message : String(error);
  console.error(JSON.stringify({ event: 'gateway.misconfigured', error: message }));
  return () => Response.json({ error: { code: 'misconfigured', message } }, { status: 503 });
}
