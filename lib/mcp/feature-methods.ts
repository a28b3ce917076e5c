import type { TenantRuntime } from '../dispatch/tenant-runtime.ts';
import type { JsonObject, JsonRpcRequest } from '../mcp-wire/json-rpc.ts';
import type { McpEra } from './call-relay.ts';
import { completeMcp, getMcpPrompt, listMcpPrompts, listMcpResources, listMcpResourceTemplates, readMcpResource } from './features.ts';
import { completeIssues, promptsGetIssues, resourceUriIssues, toolsListIssues, type ParamsIssue } from './legacy-params.ts';
import type { McpRequestScope } from './methods.ts';

/**
 * The methods a tenant offers besides tools, by what it has: resources, templates and prompts
 * when its manifest pins them, completion when an upstream of theirs completes. A tenant without
 * them answers these methods as unknown, as before. Each era's server looks methods up here after
 * its own table; the capabilities it declares come from the same facts (capabilities.ts).
 */

export interface FeatureMethod {
  issues(params: JsonObject | undefined): ParamsIssue[];
  answer(request: JsonRpcRequest, scope: McpRequestScope, era: McpEra): unknown;
}

type Offered = (runtime: TenantRuntime) => boolean;

const resources: Offered = (runtime) => runtime.features?.offers.resources === true;
const prompts: Offered = (runtime) => runtime.features?.offers.prompts === true;
const completions: Offered = (runtime) => runtime.features?.offers.completions === true;

const FEATURE_METHODS: Readonly<Record<string, FeatureMethod & { offered: Offered }>> = {
  'resources/list': { offered: resources, issues: toolsListIssues, answer: (_request, scope) => listMcpResources(scope) },
  'resources/templates/list': { offered: resources, issues: toolsListIssues, answer: (_request, scope) => listMcpResourceTemplates(scope) },
  'resources/read': { offered: resources, issues: resourceUriIssues, answer: (request, scope, era) => readMcpResource(scope, request, era) },
  'prompts/list': { offered: prompts, issues: toolsListIssues, answer: (_request, scope) => listMcpPrompts(scope) },
  'prompts/get': { offered: prompts, issues: promptsGetIssues, answer: (request, scope) => getMcpPrompt(scope, request) },
  'completion/complete': { offered: completions, issues: completeIssues, answer: (request, scope) => completeMcp(scope, request) },
};

/** The method, when this tenant offers it. */
export function featureMethod(method: string, runtime: TenantRuntime): FeatureMethod | undefined {
  if (!Object.hasOwn(FEATURE_METHODS, method)) return undefined;
  const found = FEATURE_METHODS[method];
  return found.offered(runtime) ? found : undefined;
}

/** Params issues as one message (the modern era's in-band -32602). */
export function issuesText(issues: ParamsIssue[]): string | undefined {
  return issues.length === 0 ? undefined : issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ');
}
