import type { ToolResult } from '../dispatch/call.ts';
import type { DispatchDeps } from '../dispatch/context.ts';
import { dispatchCall } from '../dispatch/pipeline.ts';
import { isTracedFailure } from '../dispatch/tool-span.ts';
import type { Governor } from '../governance/policy.ts';
import { ErrorCode, jsonRpcError } from '../mcp-wire/json-rpc.ts';
import type { JsonObject } from '../registry/json.ts';
import type { McpFeatures } from '../registry/mcp-upstream/features.ts';
import { mcpCallIdentity } from './call-identity.ts';
import { endMcpServerSpan, startMcpServerSpan } from './mcp-span.ts';
import { McpMethodError } from './method-error.ts';
import { mcpCaller, reportMissingScope, type McpRequestScope } from './methods.ts';

/**
 * Reading a pinned resource, getting a prompt, completing an argument: a call of the feature's
 * entry (lib/registry/mcp-upstream/features.ts) through the dispatch pipeline, as a tool call is, so the
 * same scopes, policy, timeout and audit apply. What cannot wait does not park: a policy that
 * says `review` refuses it instead. A result that is not `ok` is the method's JSON-RPC error.
 */

/** The tenant's deps with the features' registry, per runtime (made once). */
const featureDeps = new WeakMap<McpFeatures, DispatchDeps>();

/** A governor that turns `review` into a refusal: a read answers now or not at all; nobody's approval can reach it. */
function withoutParking(governor: Governor): Governor {
  return {
    async decide(request) {
      const decision = await governor.decide(request);
      if (decision.action !== 'review') return decision;
      return { action: 'deny', reason: `${decision.reason}; a resource read, prompt or completion is answered at once and cannot wait for approval (grant it, or deny it, in the policy)` };
    },
  };
}

function depsFor(deps: DispatchDeps, features: McpFeatures): DispatchDeps {
  let made = featureDeps.get(features);
  if (!made) {
    made = { ...deps, registry: features.registry, versions: undefined, approvals: undefined, governor: withoutParking(deps.governor) };
    featureDeps.set(features, made);
  }
  return made;
}

export interface FeatureCall {
  /** The MCP method, for the span. */
  method: string;
  /** The feature's entry (its registry name). */
  entry: string;
  args: JsonObject;
  requestId: string | number;
  meta?: Record<string, unknown>;
}

/** Runs the entry; resolves with its `ok` result, or throws the McpMethodError its failure is answered with. */
export async function callFeature(scope: McpRequestScope, features: McpFeatures, call: FeatureCall): Promise<ToolResult> {
  const { context } = scope;
  const { runtime, principal } = context;
  const tracer = runtime.deps.tracer;
  const span = tracer ? startMcpServerSpan(tracer, { method: call.method, tool: call.entry, requestId: call.requestId, meta: call.meta, protocolVersion: context.protocolVersion }, context.span) : undefined;
  // A read cannot park: no twin to look for; each is a call of its own (unless the client names it).
  const identity = await mcpCallIdentity({ tenant: principal.tenant, principal: principal.principal, tool: call.entry, args: call.args, meta: call.meta, threadHeader: context.threadHeader, requestId: call.requestId, canPark: false });
  const result = await dispatchCall(depsFor(runtime.deps, features), mcpCaller(scope, identity.thread_id, span), { call_id: identity.call_id, name: call.entry, arguments: call.args });
  if (span) endMcpServerSpan(span, isTracedFailure(result));
  reportMissingScope(context, result);
  if (result.status === 'ok') return result;
  const code = result.status === 'invalid_arguments' ? ErrorCode.InvalidParams : ErrorCode.InternalError;
  throw new McpMethodError(jsonRpcError(code, result.content, { 'toolgate/status': result.status, 'toolgate/call_id': result.call_id }));
}
