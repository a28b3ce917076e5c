import type { TenantRuntime } from '../dispatch/tenant-runtime.ts';
import { McpToolExecutor } from '../registry/executors/mcp.ts';
import type { ServerInfo } from '../mcp-wire/results.ts';
import { MODERN_VERSIONS, negotiateLegacyVersion } from '../mcp-wire/versions.ts';
import { tasksOffered } from './parking.ts';
import { TASKS_EXTENSION } from './tasks/task-access.ts';

/**
 * Who toolgate is to an MCP client, and what it offers, per tenant: the tenant's active
 * manifest names the server's version and instructions; its tools are its capability, with
 * tasks for calls that wait for approval where a store keeps them, and what else it has
 * (feature-methods.ts): resources, prompts and completions with pins, logging.
 */

/** Per runtime (a manifest version): whether any tool is an upstream MCP server's. */
const upstreamBacked = new WeakMap<TenantRuntime, boolean>();

/** Whether the tenant has upstream MCP tools, whose log messages reach clients (call-relay.ts): its 2026-07-28 `logging` capability. */
export function offersLogging(runtime: TenantRuntime): boolean {
  let offers = upstreamBacked.get(runtime);
  if (offers === undefined) {
    offers = runtime.registry.list().some((tool) => tool instanceof McpToolExecutor);
    upstreamBacked.set(runtime, offers);
  }
  return offers;
}

/**
 * What the tenant's pins add (feature-methods.ts): resources, prompts, completions. Subscribing
 * is taken on the legacy revisions and nothing kept, so the capability claims no `subscribe`;
 * no list changes are announced (clients list again; on 2026-07-28 when `ttlMs` runs out).
 */
function pinnedCapabilities(runtime: TenantRuntime) {
  const offers = runtime.features?.offers;
  return {
    ...(offers?.resources ? { resources: {} } : {}),
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

/**
 * What the legacy handshake declares: tools, logging (setLevel taken, nothing kept), and (where
 * tasks are kept) 2025-11-25 tasks: tools calls as tasks (those whose `execution.taskSupport`
 * allows it), listed and cancelled.
 */
export function legacyCapabilities(runtime: TenantRuntime) {
  return { tools: {}, logging: {}, ...pinnedCapabilities(runtime), ...(tasksOffered(runtime) ? { tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } } : {}) };
}

/** The legacy handshake's answer, stateless: nothing about the client is kept. */
export function initializeResult(runtime: TenantRuntime, requestedVersion: string) {
  return {
    protocolVersion: negotiateLegacyVersion(requestedVersion),
    capabilities: legacyCapabilities(runtime),
    serverInfo: mcpServerInfo(runtime),
    ...instructions(runtime),
  };
}

/** `server/discover`'s payload (the wire stamps resultType, cache hints and serverInfo). */
export function discoverResult(runtime: TenantRuntime) {
  const extensions = tasksOffered(runtime) ? { extensions: { [TASKS_EXTENSION]: {} } } : {};
  // Log messages come only from upstream tools, with a request's log level (call-relay.ts).
  const logging = offersLogging(runtime) ? { logging: {} } : {};
  return { supportedVersions: [...MODERN_VERSIONS], capabilities: { tools: {}, ...logging, ...pinnedCapabilities(runtime), ...extensions }, ...instructions(runtime) };
}
