import type { TenantRuntime } from '../dispatch/tenant-runtime.ts';
import type { ServerInfo } from '../mcp-wire/results.ts';
import { MODERN_VERSIONS, negotiateLegacyVersion } from '../mcp-wire/versions.ts';
import { tasksOffered } from './parking.ts';
import { TASKS_EXTENSION } from './tasks/task-access.ts';

/**
 * Who toolgate is to an MCP client, and what it offers, per tenant: the tenant's active
 * manifest names the server's version and instructions; its tools are its capability, with
 * tasks for calls that wait for approval where a store keeps them.
 */

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
  return { tools: {}, logging: {}, ...(tasksOffered(runtime) ? { tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } } : {}) };
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
  return { supportedVersions: [...MODERN_VERSIONS], capabilities: { tools: {}, ...extensions }, ...instructions(runtime) };
}
