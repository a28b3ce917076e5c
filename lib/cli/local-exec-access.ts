import { TENANT_SECRETS_VARIABLE } from '../crypto/secret-grants.ts';
import { EGRESS_ALLOW_VARIABLE } from '../egress/allowlist.ts';
import type { LocalExecServer } from './local-exec-server.ts';

type Env = Readonly<Record<string, string | undefined>>;

function appended(current: string | undefined, separator: string, entry: string): string {
  return current && current.trim() !== '' ? `${current}${separator}${entry}` : entry;
}

/**
 * What a gateway needs to reach the exec-server its launcher started beside it (`npm start`,
 * `npm run dev:*`): the secret under the name the manifest gives it, that name granted to the
 * tenant, and that exact loopback address (host:port) allowed — nothing more of the machine. The
 * operator's own grants and allowlist are kept.
 */
export function localExecAccess(tenant: string, exec: LocalExecServer, env: Env): Record<string, string> {
  const variables = Object.keys(exec.env);
  return {
    ...exec.env,
    [TENANT_SECRETS_VARIABLE]: appended(env[TENANT_SECRETS_VARIABLE], ';', `${tenant}:${variables.join(',')}`),
    [EGRESS_ALLOW_VARIABLE]: appended(env[EGRESS_ALLOW_VARIABLE], ',', new URL(exec.url).host),
    TOOLGATE_DEMO_EXEC_URL: exec.url,
  };
}
