import { missingScope } from '../governance/scopes.ts';
import { CLIENT_CAPABILITIES_META_KEY, metaOf } from '../mcp-wire/envelope.ts';
import { ErrorCode, isPlainObject, jsonRpcError, type JsonRpcError, type JsonRpcRequest } from '../mcp-wire/json-rpc.ts';
import { McpToolExecutor } from '../registry/executors/mcp.ts';
import type { McpRequestContext } from './methods.ts';

/**
 * A 2026-07-28 request states its client's capabilities itself, and a server must not rely on one
 * it did not declare: a `tools/call` of an upstream tool that its upstream offers only to clients
 * that can be asked something (sampling, elicitation, roots: pinned at import as the tool's
 * `client_capabilities`) is refused with -32021 (HTTP 400, also where its answer would have streamed) and the capabilities to declare, before
 * anything runs, unless the request declares each of them. (Only the capability names are compared:
 * which modes a tool's questions use is not known until it asks, and the relay refuses a mode the
 * client did not declare then.) A caller lacking the tool's scope hears about its scope instead.
 */
export function missingClientCapability(request: JsonRpcRequest, context: McpRequestContext): JsonRpcError | undefined {
  const name = request.params?.name;
  const tool = typeof name === 'string' ? context.runtime.registry.get(name) : undefined;
  if (!(tool instanceof McpToolExecutor) || !tool.clientCapabilities) return undefined;
  if (missingScope(tool.definition, new Set(context.principal.scopes)) !== undefined) return undefined;
  const declared = metaOf(request.params)?.[CLIENT_CAPABILITIES_META_KEY];
  const missing = Object.fromEntries(Object.entries(tool.clientCapabilities).filter(([capability]) => !(isPlainObject(declared) && isPlainObject(declared[capability]))));
  if (Object.keys(missing).length === 0) return undefined;
  const names = Object.keys(missing).join(', ');
  return jsonRpcError(ErrorCode.MissingRequiredClientCapability, `Missing required client capability: the tool ${name} asks its client for ${names} while it runs (its upstream offers it only to clients that can answer); declare ${names} in this request's _meta clientCapabilities to call it`, { requiredCapabilities: missing });
}
