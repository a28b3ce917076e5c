import { DEFAULT_APPROVAL_TTL_SECONDS } from '../governance/approvals.ts';
import { tierGovernor, type Governor, type TierPolicy } from '../governance/policy.ts';
import { DEFAULT_IDEMPOTENCY_TTL_MS } from '../idempotency/claim.ts';
import type { ToolDefinition, ToolDefinitionInput } from '../registry/definition.ts';
import { FnToolExecutor, type ToolExecutor, type ToolHandler } from '../registry/executor.ts';
import { ToolRegistry, type RegisterOptions } from '../registry/registry.ts';
import { AuditRecorder } from '../audit/recorder.ts';
import type { Store } from '../stores/store.ts';
import { MemoryStore } from '../stores/memory.ts';
import { Limiter } from '../limits/limiter.ts';
import { countersOf } from '../limits/store-counters.ts';
import type { ManifestLimit } from '../limits/limit.ts';
import { createSchemaValidator } from '../validation/select-engine.ts';
import type { SchemaValidator } from '../validation/validator.ts';
import { decideParkedCall, type DecideOutcome } from './approvals/approval-flow.ts';
import { dispatchBatch } from './batch.ts';
import type { ToolCall, ToolResult } from './call.ts';
import type { CallerContext, DispatchDeps } from './context.ts';
import { silentLogger, type EventSink, type Logger } from './events.ts';
import { dispatchCall } from './pipeline.ts';
import { SchemaCache } from './schema-cache.ts';
import type { Tracer } from '../telemetry/tracer.ts';

export interface ToolRouterOptions {
  /** Tier policy; by default reads run and write/execute calls are refused (deny by default). */
  policy?: Partial<TierPolicy>;
  /** A governor of your own; takes precedence over `policy`. */
  governor?: Governor;
  /** Enables idempotency (replay of retried calls) and the audit trail. */
  store?: Store;
  validator?: SchemaValidator;
  events?: EventSink;
  log?: Logger;
  /** The clock for idempotency and approval expiry (tests move it). */
  now?: () => number;
  /** Added to a tool's timeout before a call that stopped mid-way is given up on (default 30 s; see lease.ts). */
  leaseGraceMs?: number;
  /** OpenTelemetry spans for every call (lib/telemetry: `tracerFromEnv`, or a Tracer of your own). */
  tracer?: Tracer;
  /** Quotas and rate limits, as a manifest's `limits` (counted in `store`, or in memory without one); `costs`: tool → cost for `weight: "cost"`. */
  limits?: ManifestLimit[];
  costs?: Record<string, number>;
}

/** Who is calling, for library use. Everything is optional: an in-process caller is trusted with all scopes. */
export interface RouterCallContext {
  thread_id?: string;
  tenant?: string;
  principal?: string;
  scopes?: Iterable<string>;
  env?: Record<string, string | undefined>;
}

/** The in-process API: register tools, execute calls, never throw. */
export class ToolRouter {
  readonly registry: ToolRegistry;
  readonly #deps: DispatchDeps;

  constructor(registry: ToolRegistry = new ToolRegistry(), defaultTimeoutMs = 5000, options: ToolRouterOptions = {}) {
    this.registry = registry;
    this.#deps = {
      registry,
      schemas: new SchemaCache(options.validator ?? createSchemaValidator()),
      governor: options.governor ?? tierGovernor(options.policy),
      store: options.store,
      audit: options.store ? new AuditRecorder(options.store) : undefined,
      // With a store, `review` parks calls until submitApproval decides them.
      approvals: options.store ? { ttlMs: DEFAULT_APPROVAL_TTL_SECONDS * 1000 } : undefined,
      idempotencyTtlMs: DEFAULT_IDEMPOTENCY_TTL_MS,
      leaseGraceMs: options.leaseGraceMs,
      defaultTimeoutMs,
      events: options.events,
      log: options.log ?? silentLogger,
      now: options.now ?? Date.now,
      tracer: options.tracer,
      ...(options.limits?.length ? { limiter: new Limiter(options.limits, countersOf(options.store ?? new MemoryStore()), { costs: new Map(Object.entries(options.costs ?? {})), now: options.now }) } : {}),
    };
  }

  register(toolName: string, definition: Omit<ToolDefinitionInput, 'name'>, handler: ToolHandler, options?: RegisterOptions): void;
  register(executor: ToolExecutor, options?: RegisterOptions): void;
  register(
    first: string | ToolExecutor,
    second?: Omit<ToolDefinitionInput, 'name'> | RegisterOptions,
    handler?: ToolHandler,
    options?: RegisterOptions,
  ): void {
    if (typeof first === 'string') {
      if (!handler) throw new TypeError(`register("${first}", definition, handler): the handler is missing`);
      this.registry.register(new FnToolExecutor({ ...(second as Omit<ToolDefinitionInput, 'name'>), name: first }, handler), options);
    } else {
      this.registry.register(first, second as RegisterOptions | undefined);
    }
  }

  /** Runs one call. Never throws: unknown tools, bad arguments, timeouts and failures are results. */
  execute(toolCall: ToolCall, context: RouterCallContext = {}, timeoutMs?: number): Promise<ToolResult> {
    return dispatchCall(this.#deps, callerOf(context), toolCall, { timeoutMs });
  }

  /** Runs a batch; results in request order with call ids unchanged. */
  dispatch(calls: ToolCall[], options: { parallel?: boolean; context?: RouterCallContext } = {}): Promise<ToolResult[]> {
    return dispatchBatch(this.#deps, callerOf(options.context ?? {}), calls, options);
  }

  /**
   * Decides a parked call (the seed's submit_approval): approving runs it once and returns its
   * result; rejecting ends it as `denied`. `approver` must not be the principal that asked.
   */
  async submitApproval(approvalId: string, decision: { decision: 'approve' | 'reject'; approver: string; reason?: string; env?: Record<string, string | undefined> }): Promise<DecideOutcome> {
    return decideParkedCall(this.#deps, approvalId, { decision: decision.decision, by: decision.approver, via: 'api', reason: decision.reason }, decision.env ?? {});
  }

  getRegisteredTools(): ToolDefinition[] {
    return this.registry.definitions();
  }

  hasTool(toolName: string): boolean {
    return this.registry.has(toolName);
  }
}

function callerOf(context: RouterCallContext): CallerContext {
  return {
    tenant: context.tenant ?? 'local',
    principal: context.principal ?? 'local',
    scopes: context.scopes === undefined ? undefined : new Set(context.scopes),
    thread_id: context.thread_id ?? 'default',
    env: context.env ?? {},
  };
}
