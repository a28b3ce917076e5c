import { resolveSecret } from '../crypto/secrets.ts';
import type { ExecutionEnvironment } from '../exec/environment.ts';
import { RemoteExecutionEnvironment } from '../exec/remote.ts';
import { ToolError } from '../registry/errors.ts';
import type { ToolExecutor } from '../registry/executor.ts';
import type { ExecutionEnvironmentRef, Manifest } from '../registry/manifest.ts';
import { builtinTools } from './builtins.ts';
import { codingToolsFor } from './profiles.ts';

type Env = Readonly<Record<string, string | undefined>>;

/** An environment whose every operation answers `unavailable` with the same explanation. */
function unavailableEnvironment(reason: string): ExecutionEnvironment {
  return new Proxy({} as ExecutionEnvironment, {
    get: () => async () => {
      throw new ToolError('unavailable', `The execution environment is unavailable: ${reason}`);
    },
  });
}

/** The tenant's exec-server over signed RPC; a missing secret makes every call `unavailable`, not a crash. */
function remoteEnvironment(ref: ExecutionEnvironmentRef, env: Env | undefined): ExecutionEnvironment {
  if (env === undefined) return unavailableEnvironment('no runtime environment to resolve its secret from');
  try {
    return new RemoteExecutionEnvironment({ url: ref.url, secret: resolveSecret(ref.secret, env), timeoutMs: ref.timeout_ms, network: ref.network });
  } catch (error) {
    return unavailableEnvironment((error as Error).message);
  }
}

/** The built-in coding tools of the manifest's profile, when it names an execution environment. */
export function codingToolsForManifest(manifest: Pick<Manifest, 'profile' | 'execution_environment'>, env: Env | undefined): ToolExecutor[] {
  const ref = manifest.execution_environment;
  return ref ? codingToolsFor(manifest.profile, remoteEnvironment(ref, env)) : [];
}

/**
 * A tenant's built-in tools: the profile's coding tools (registered for it before its manifest
 * tools), and everything a manifest entry may name with `"executor": {"kind": "builtin"}` —
 * the tools registered in code plus those coding tools, so a manifest can change their tier,
 * scopes or output limits. Without `env` (checking a manifest) the coding tools are inert.
 */
export function tenantBuiltins(manifest: Pick<Manifest, 'profile' | 'execution_environment'>, env?: Env): { coding: ToolExecutor[]; builtins: Map<string, ToolExecutor> } {
  const coding = codingToolsForManifest(manifest, env);
  const builtins = builtinTools();
  for (const tool of coding) builtins.set(tool.name, tool);
  return { coding, builtins };
}

/** The loader's view: what `builtin` executors may name in a manifest that is not yet known to be valid. */
export function builtinsForUncheckedManifest(value: Record<string, unknown>): Map<string, ToolExecutor> {
  const profile = ['openai', 'anthropic', 'gemini'].includes(value.profile as string) ? (value.profile as Manifest['profile']) : 'openai';
  const ref = value.execution_environment as ExecutionEnvironmentRef | undefined;
  return tenantBuiltins({ profile, execution_environment: ref && typeof ref === 'object' ? ref : undefined }).builtins;
}
