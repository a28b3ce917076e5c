import type { TenantRuntime } from '../dispatch/tenant-runtime.ts';
import { McpToolExecutor } from '../registry/executors/mcp.ts';
import type { ServerInfo } from '../mcp-wire/results.ts';
import { MODERN_VERSIONS, negotiateLegacyVersion } from '../mcp-wire/versions.ts';

/**
 * Who toolgate is to an MCP client, and what it offers, per tenant: the tenant's active
 * manifest names the server's version and instructions; its tools, and what else it has
 * (feature-methods.ts): logging with upstream tools, resources, prompts, completions with pins.
 */

/** Per runtime (a manifest version): whether any tool is an upstream MCP server's. */
const upstreamBacked = new WeakMap<TenantRuntime, boolean>();

/** Whether the tenant has upstream MCP tools, whose log messages reach clients (call-relay.ts): its `logging` capability. */
export function offersLogging(runtime: TenantRuntime): boolean {
  let offers = upstreamBacked.get(runtime);
  if (offers === undefined) {
    offers = runtime.registry.list().some((tool) => tool instanceof McpToolExecutor);
    upstreamBacked.set(runtime, offers);
  }
  return offers;
}

/**
 * The server's capabilities on an era. Subscribing to resources is a legacy method, taken and
 * kept nowhere (stateless: no update is ever sent); 2026-07-28 has subscriptions/listen instead,
 * which toolgate does not offer. No list changes are announced: clients list again (on 2026-07-28,
 * when a list result's ttlMs runs out).
 */
function capabilities(runtime: TenantRuntime, era: 'legacy' | 'modern') {
  const offers = runtime.features?.offers;
  return {
    tools: {},
    ...(offersLogging(runtime) ? { logging: {} } : {}),
    ...(offers?.resources ? { resources: era === 'legacy' ? { subscribe: true } : {} } : {}),
    ...(offers?.prompts ? { prompts: {} } : {}),
    ...(offers?.completions ? { completions: {} } : {}),
  };
}

export function mcpServerInfo(runtime: TenantRuntime): ServerInfo {
  return { name: 'toolgate', version: runtime.manifest.version, title: `toolgate: ${runtime.manifest.tenant}` };
}

function instructions(runtime: TenantRuntime): { instructions?: string } {
  const text = runtime.manifest.description;
  return text ? { instructions: text } : {};
}

/** The legacy handshake's answer, stateless: nothing about the client is kept. */
export function initializeResult(runtime: TenantRuntime, requestedVersion: string) {
  return {
    protocolVersion: negotiateLegacyVersion(requestedVersion),
    capabilities: capabilities(runtime, 'legacy'),
    serverInfo: mcpServerInfo(runtime),
    ...instructions(runtime),
  };
}

/** `server/discover`'s payload (the wire stamps resultType, cache hints and serverInfo). */
export function discoverResult(runtime: TenantRuntime) {
  return { supportedVersions: [...MODERN_VERSIONS], capabilities: capabilities(runtime, 'modern'), ...instructions(runtime) };
}
