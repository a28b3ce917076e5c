import type { AuditRecorder } from '../audit/recorder.ts';
import type { FourEyesRules } from '../governance/four-eyes.ts';
import type { ApprovalNotifier } from '../governance/notifier.ts';
import type { Governor } from '../governance/policy.ts';
import type { Limiter } from '../limits/limiter.ts';
import { requestPatternBudget, type PatternBudget } from '../patterns/index.ts';
import type { ConnectionCaller } from '../connections/connection-access.ts';
import type { CallRelay } from '../registry/executor.ts';
import type { ToolRegistry } from '../registry/registry.ts';
import type { Store } from '../stores/store.ts';
import type { SpanContext } from '../telemetry/trace-context.ts';
import type { Tracer } from '../telemetry/tracer.ts';
import { ValidationBudget } from '../validation/work-budget.ts';
import type { EventSink, Logger } from './events.ts';
import type { ManifestVersions } from './manifest-versions.ts';
import type { DispatchMetrics } from './metrics.ts';
import type { SchemaCache } from './schema-cache.ts';

/** Who is calling and where: one per request. */
export interface CallerContext {
  tenant: string;
  principal: string;
  /** The principals the caller's key was minted under (four-eyes.ts); absent for tokens and operator-made keys. */
  lineage?: readonly string[];
  /** The caller's token claims (a token from the tenant's identity provider), for rule conditions; none for API keys. */
  claims?: Readonly<Record<string, unknown>>;
  /** The caller's scopes; undefined means a trusted in-process caller (library use). */
  scopes?: ReadonlySet<string>;
  thread_id: string;
  /** The runtime's environment, where `env:NAME` secrets resolve. */
  env: Readonly<Record<string, string | undefined>>;
  /** The manifest version the call runs on (recorded for audit). */
  manifest_version?: string;
  /** Runs work after the response (Workers' waitUntil); without it the work is awaited inline. */
  defer?: (work: Promise<unknown>) => void;
  /**
   * The matching work every call of the request may spend together on schema and rule patterns
   * (one per HTTP request or batch; dispatchBatch and dispatchCall make one when it is missing).
   */
  patternBudget?: PatternBudget;
  /** The validation work every call of the request may spend together (lib/validation/work-budget.ts), made like patternBudget. */
  validationBudget?: ValidationBudget;
  /** The span a call's `execute_tool` span is part of: the request's (HTTP, MCP), continuing the caller's traceparent. */
  trace?: SpanContext;
  /** What the caller's client can take from upstreams while its calls run (notifications, requests); none by default. */
  relay?: CallRelay;
  /** Where the caller reached the gateway and its sign-in token: what tools acting as the user need (lib/connections). */
  connect?: ConnectionCaller;
  /** The format the caller's client takes tool definitions in (its dispatch format; MCP: mcp); default toolgate. */
  tool_format?: string;
  /**
   * Told once the call's run starts (its tool is about to execute): by then the record its outcome
   * will be stored under, if it keeps one, is durable. An MCP event stream names that record in its
   * event ids then, so a client that loses the stream can resume it (lib/mcp/stream-resumption.ts).
   */
  onRun?: (run: CallRun) => void;
}

/** A call whose run starts: the key of the record its outcome will be stored under (none for calls that keep no record). */
export interface CallRun {
  record_key?: string;
}

/** The caller with its request's budgets, made when missing: a request or batch cannot buy one per call. */
export function withRequestBudgets(caller: CallerContext): CallerContext {
  if (caller.patternBudget && caller.validationBudget) return caller;
  return { ...caller, patternBudget: caller.patternBudget ?? requestPatternBudget(), validationBudget: caller.validationBudget ?? new ValidationBudget() };
}

/** What the pipeline runs on: one per tenant (and manifest version). */
export interface DispatchDeps {
  registry: ToolRegistry;
  schemas: SchemaCache;
  /** The tenant's manifest versions, `registry` being the serving one's; without it (library use) the registry is the only one. */
  versions?: ManifestVersions;
  governor: Governor;
  /** Idempotency records; without a store, nothing is deduplicated. */
  store?: Store;
  /** Audit envelopes; without a recorder, nothing is audited. */
  audit?: AuditRecorder;
  metrics?: DispatchMetrics;
  /** The tenant's limits (manifest `limits`): counted before a call runs; without it, nothing is limited. */
  limiter?: Limiter;
  /** Deferred approvals: `review` parks calls (needs a store); without it, review answers `denied`. */
  approvals?: {
    ttlMs: number;
    notifier?: ApprovalNotifier;
    /** Remind this long before an approval expires (the sweep sends it). */
    remindBeforeMs?: number;
    /** How approvals tell people apart (manifest approvals.same_person_as_creator, confusable_names). */
    fourEyes?: FourEyesRules;
  };
  idempotencyTtlMs: number;
  /** Added to a tool's timeout before its call is given up on (TOOLGATE_LEASE_GRACE_MS; lease.ts). */
  leaseGraceMs?: number;
  defaultTimeoutMs: number;
  events?: EventSink;
  log: Logger;
  now: () => number;
  /** OpenTelemetry spans (lib/telemetry); without it (no OTLP endpoint) nothing is traced. */
  tracer?: Tracer;
}
