import type { TenantRuntime } from '../dispatch/tenant-runtime.ts';
import { LOG_LEVELS } from '../mcp-wire/envelope.ts';
import { ErrorCode, type JsonObject, type JsonRpcRequest } from '../mcp-wire/json-rpc.ts';
import type { McpEra } from './call-relay.ts';
import { offersLogging } from './capabilities.ts';
import { completeMcp, getMcpPrompt, listMcpPrompts, listMcpResources, listMcpResourceTemplates, readMcpResource } from './features.ts';
import { completeIssues, promptsGetIssues, setLevelIssues, toolsListIssues, uriIssues, type ParamsIssue } from './legacy-params.ts';
import { McpMethodError } from './method-error.ts';
import type { McpRequestScope } from './methods.ts';

/**
 * The methods a tenant offers besides tools, by what it has: resources, templates and prompts
 * when its manifest pins them, completion when an upstream of theirs completes, logging when it
 * has upstream tools (whose log messages reach clients: call-relay.ts). A tenant without them
 * answers these methods as unknown, as before. Each era's server looks methods up here after its
 * own table; the capabilities it declares come from the same facts (capabilities.ts).
 */

export interface FeatureMethod {
  issues(params: JsonObject | undefined): ParamsIssue[];
  answer(request: JsonRpcRequest, scope: McpRequestScope, era: McpEra): unknown;
}

type Offered = (runtime: TenantRuntime, era: McpEra) => boolean;

const resources: Offered = (runtime) => runtime.features?.offers.resources === true;
const prompts: Offered = (runtime) => runtime.features?.offers.prompts === true;
const completions: Offered = (runtime) => runtime.features?.offers.completions === true;
/** The legacy revisions only: 2026-07-28 removed these methods (subscriptions/listen replaces subscribing). */
const legacyOnly = (offered: Offered): Offered => (runtime, era) => era === 'legacy' && offered(runtime, era);

/**
 * Stateless: a subscription or a log level is taken (`{}`) and nothing is kept; no update
 * notification is ever sent, and a legacy client hears every log message a call's upstream sends.
 */
const acknowledged = () => ({});

function setLevel(request: JsonRpcRequest): JsonObject {
  const level = request.params!.level as string;
  if (!LOG_LEVELS.includes(level)) throw new McpMethodError(ErrorCode.InvalidParams, `Invalid params: level must be one of ${LOG_LEVELS.join(', ')}`);
  return {};
}

const FEATURE_METHODS: Readonly<Record<string, FeatureMethod & { offered: Offered }>> = {
  'resources/list': { offered: resources, issues: toolsListIssues, answer: (_request, scope) => listMcpResources(scope) },
  'resources/templates/list': { offered: resources, issues: toolsListIssues, answer: (_request, scope) => listMcpResourceTemplates(scope) },
  'resources/read': { offered: resources, issues: uriIssues, answer: (request, scope, era) => readMcpResource(scope, request, era) },
  'resources/subscribe': { offered: legacyOnly(resources), issues: uriIssues, answer: acknowledged },
  'resources/unsubscribe': { offered: legacyOnly(resources), issues: uriIssues, answer: acknowledged },
  'prompts/list': { offered: prompts, issues: toolsListIssues, answer: (_request, scope) => listMcpPrompts(scope) },
  'prompts/get': { offered: prompts, issues: promptsGetIssues, answer: (request, scope) => getMcpPrompt(scope, request) },
  'completion/complete': { offered: completions, issues: completeIssues, answer: (request, scope) => completeMcp(scope, request) },
  'logging/setLevel': { offered: legacyOnly(offersLogging), issues: setLevelIssues, answer: setLevel },
};

/** The method, when this tenant offers it on this era. */
export function featureMethod(method: string, runtime: TenantRuntime, era: McpEra): FeatureMethod | undefined {
  if (!Object.hasOwn(FEATURE_METHODS, method)) return undefined;
  const found = FEATURE_METHODS[method];
  return found.offered(runtime, era) ? found : undefined;
}

/** Params issues as one message (the modern era's in-band -32602). */
export function issuesText(issues: ParamsIssue[]): string | undefined {
  return issues.length === 0 ? undefined : issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ');
}
