import type { TenantRuntime } from '../dispatch/tenant-runtime.ts';
import type { ServerInfo } from '../mcp-wire/results.ts';
import { MODERN_VERSIONS, negotiateLegacyVersion } from '../mcp-wire/versions.ts';

/**
 * Who toolgate is to an MCP client, and what it offers, per tenant: the tenant's active
 * manifest names the server's version and instructions; its tools are the only capability.
 */

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
    capabilities: { tools: {}, logging: {} },
    serverInfo: mcpServerInfo(runtime),
    ...instructions(runtime),
  };
}

/** `server/discover`'s payload (the wire stamps resultType, cache hints and serverInfo). */
export function discoverResult(runtime: TenantRuntime) {
  return { supportedVersions: [...MODERN_VERSIONS], capabilities: { tools: {} }, ...instructions(runtime) };
}
