import { flagOf, textOf, type Invocation } from './command-line.ts';

class CommandError extends Error {}

interface Grant {
  principal: string;
  connection: string;
  granted_at: string;
  refreshable: boolean;
  scope?: string;
  /** The operator key it is sealed under (TOOLGATE_CONNECTION_KEYS): an old key can go once no grant names it. */
  kid: string;
}

async function request(url: string, key: string, method: 'GET' | 'DELETE', path: string): Promise<Record<string, unknown>> {
  let response: Response;
  try {
    response = await fetch(`${url.replace(/\/+$/, '')}/v1/connections${path}`, { method, headers: { authorization: `Bearer ${key}` } });
  } catch (error) {
    throw new CommandError(`cannot reach ${url}: ${(error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message}`);
  }
  const parsed = (await response.json().catch(() => undefined)) as Record<string, unknown> | undefined;
  if (!parsed) throw new CommandError(`${url} answered ${response.status} with something that is not JSON`);
  if (!response.ok) throw new CommandError(`${url} answered ${response.status}: ${(parsed.error as { message?: string } | undefined)?.message ?? 'no message'}`);
  return parsed;
}

/** `toolgate connections list|revoke`: users' connection grants through a gateway (GET/DELETE /v1/connections). */
export async function connectionsCommand(action: string, invocation: Invocation): Promise<number> {
  const values = { all: flagOf(invocation, 'all'), json: flagOf(invocation, 'json'), principal: textOf(invocation, 'principal') };
  try {
    const url = textOf(invocation, 'url') ?? process.env.TOOLGATE_URL;
    const key = textOf(invocation, 'key') ?? process.env.TOOLGATE_KEY;
    if (!url || !key) throw new TypeError('give the gateway: --url URL --key KEY (or TOOLGATE_URL and TOOLGATE_KEY)');
    if (action === 'list') {
      const answer = await request(url, key, 'GET', values.all ? '?all=1' : '');
      const grants = answer.connections as Grant[];
      if (values.json) console.log(JSON.stringify(grants, null, 2));
      else if (grants.length === 0) console.log('no connection grants');
      else for (const g of grants) console.log(`${g.connection}\t${g.principal}\tgranted ${g.granted_at}\t${g.refreshable ? 'renews' : 'does not renew'}\tkey ${g.kid}${g.scope ? `\t${g.scope}` : ''}`);
      return 0;
    }
    if (action === 'revoke') {
      const [connection] = invocation.operands;
      if (!connection) throw new TypeError('name the connection to revoke');
      const query = values.principal ? `?principal=${encodeURIComponent(values.principal)}` : '';
      const answer = await request(url, key, 'DELETE', `/${encodeURIComponent(connection)}${query}`);
      if (values.json) console.log(JSON.stringify(answer, null, 2));
      else console.log(`revoked "${connection}" for ${String(answer.principal)}${answer.provider_revoked === undefined ? ' (the provider has no revocation endpoint)' : answer.provider_revoked ? ' (and at the provider)' : ' (the provider refused or could not be reached: revoke it there too)'}`);
      return 0;
    }
    throw new TypeError(action ? `unknown action "${action}"` : 'no action given');
  } catch (error) {
    if (error instanceof CommandError) {
      console.error(`toolgate connections ${action}: ${error.message}`);
      return 1;
    }
    if (error instanceof TypeError) {
      console.error(`toolgate connections ${action}: ${error.message}; see toolgate connections ${action} --help`);
      return 2;
    }
    throw error;
  }
}
