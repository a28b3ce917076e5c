import type { ResolveSecret } from '../crypto/secrets.ts';
import type { Fetch } from '../egress/fetch.ts';
import type { ExecutionEnvironment } from '../exec/environment.ts';
import { RemoteExecutionEnvironment } from '../exec/client/remote.ts';
import { ToolError } from '../registry/errors.ts';
import type { ToolExecutor } from '../registry/executor.ts';
import type { ExecutionEnvironmentRef, Manifest } from '../registry/manifest/manifest.ts';
import { builtinTools } from './builtins.ts';
import { codingToolsFor } from './profiles.ts';

/** What a tenant's runtime may use to reach its exec-server: its granted secrets and the gateway's egress. */
export interface TenantAccess {
  secrets: ResolveSecret;
  egress: Fetch;
}

/** An environment whose every operation answers `unavailable` with the same explanation. */
function unavailableEnvironment(reason: string): ExecutionEnvironment {
  return new Proxy({} as ExecutionEnvironment, {
    get: () => async () => {
      throw new ToolError('unavailable', `The execution environment is unavailable: ${reason}`);
    },
  });
}

/**
 * The tenant's exec-server over signed RPC, acting for that tenant (the exec-server refuses
 * tenants it was not started for); a missing or ungranted secret makes every call `unavailable`,
 * not a crash.
 */
function remoteEnvironment(ref: ExecutionEnvironmentRef, tenant: string, access: TenantAccess | undefined): ExecutionEnvironment {
  if (access === undefined) return unavailableEnvironment('no runtime environment to resolve its secret from');
  try {
    return new RemoteExecutionEnvironment({ url: ref.url, secret: access.secrets(ref.secret), tenant, timeoutMs: ref.timeout_ms, network: ref.network, fetch: access.egress });
  } catch (error) {
    return unavailableEnvironment((error as Error).message);
  }
}

/** The built-in coding tools of the manifest's profile, when it names an execution environment. */
export function codingToolsForManifest(manifest: Pick<Manifest, 'tenant' | 'profile' | 'execution_environment'>, access: TenantAccess | undefined): ToolExecutor[] {
  const ref = manifest.execution_environment;
  return ref ? codingToolsFor(manifest.profile, remoteEnvironment(ref, manifest.tenant, access)) : [];
}

/**
 * A tenant's built-in tools: the profile's coding tools (registered for it before its manifest
 * tools), and everything a manifest entry may name with `"executor": {"kind": "builtin"}` —
 * the tools registered in code plus those coding tools, so a manifest can change their tier,
 * scopes or output limits. Without `access` (checking a manifest) the coding tools are inert.
 */
export function tenantBuiltins(manifest: Pick<Manifest, 'tenant' | 'profile' | 'execution_environment'>, access?: TenantAccess): { coding: ToolExecutor[]; builtins: Map<string, ToolExecutor> } {
  const coding = codingToolsForManifest(manifest, access);
  const builtins = builtinTools();
  for (const tool of coding) builtins.set(tool.name, tool);
  return { coding, builtins };
}

/** The loader's view: what `builtin` executors may name in a manifest that is not yet known to be valid. */
export function builtinsForUncheckedManifest(value: Record<string, unknown>): Map<string, ToolExecutor> {
  const profile = ['openai', 'anthropic', 'gemini'].includes(value.profile as string) ? (value.profile as Manifest['profile']) : 'openai';
  const ref = value.execution_environment as ExecutionEnvironmentRef | undefined;
  const tenant = typeof value.tenant === 'string' ? value.tenant : '';
  return tenantBuiltins({ tenant, profile, execution_environment: ref && typeof ref === 'object' ? ref : undefined }).builtins;
}
