import { ExecEnvironmentError } from '../environment.ts';

/**
 * The environment a command starts with, built from an allowlist rather than from the
 * exec-server's own environment minus what looks secret: the server holds TOOLGATE_EXEC_SECRET
 * and whatever its operator exported, and a command (which a model chose) prints `env` as easily
 * as anything else. Only these names are taken from the server; the caller's explicit variables
 * (ExecOptions.env) come on top, checked for shape only: they are the caller's own choice.
 */
const PASSED_FROM_SERVER = ['LANG', 'LANGUAGE', 'TERM', 'TZ'];
const PASSED_PREFIXES = ['LC_'];

/** The PATH inside the sandbox: the system folders it mounts (the server's own PATH may name folders it cannot see). */
export const SANDBOX_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

export interface CommandEnvOptions {
  /** In the sandbox HOME and TMPDIR are the fresh /tmp and PATH the system folders; unsandboxed, the server's own. */
  sandboxed: boolean;
}

export function commandEnvironment(
  serverEnv: Readonly<Record<string, string | undefined>>,
  explicit: Record<string, string> | undefined,
  options: CommandEnvOptions,
): Record<string, string> {
  const env: Record<string, string> = { LANG: 'C.UTF-8' };
  for (const [name, value] of Object.entries(serverEnv)) {
    if (value !== undefined && (PASSED_FROM_SERVER.includes(name) || PASSED_PREFIXES.some((prefix) => name.startsWith(prefix)))) env[name] = value;
  }
  if (options.sandboxed) {
    Object.assign(env, { PATH: SANDBOX_PATH, HOME: '/tmp', TMPDIR: '/tmp' });
  } else {
    for (const name of ['PATH', 'HOME', 'TMPDIR']) {
      const value = serverEnv[name];
      if (value !== undefined) env[name] = value;
    }
    env.PATH ??= SANDBOX_PATH;
  }
  return { ...env, ...checkedEnv(explicit) };
}

function checkedEnv(env: Record<string, string> | undefined): Record<string, string> {
  if (env === undefined) return {};
  for (const [name, value] of Object.entries(env)) {
    if (name === '' || /[=\0]/.test(name) || typeof value !== 'string' || value.includes('\0')) {
      throw new ExecEnvironmentError('invalid_request', `environment variable ${JSON.stringify(name)} is not usable: names need no "=" or NUL, values must be strings without NUL`);
    }
  }
  return env;
}
