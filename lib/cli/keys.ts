import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { createApiKey } from '../governance/api-keys.ts';
import { nodeStoreFromEnv } from './node-store.ts';

const USAGE = `Usage: toolgate keys create --tenant T --principal P --scopes a,b      (into the store of TOOLGATE_STORE, default .toolgate/toolgate.db)
       toolgate keys create --principal P --scopes a,b [--url URL --key KEY]  (through POST /v1/admin/keys, for the admin key's tenant;
                                                                          URL and KEY default to TOOLGATE_URL and TOOLGATE_KEY)

Creates an API key for a principal and prints it once; toolgate keeps only its SHA-256.
Scopes the gateway knows: approvals:read, approvals:decide, audit:read, admin, plus any tool scopes.`;

/** `toolgate keys create`. */
export async function keysCommand(args: string[]): Promise<number> {
  const [action, ...rest] = args;
  const { values } = parseArgs({ args: rest, options: { tenant: { type: 'string' }, principal: { type: 'string' }, scopes: { type: 'string' }, url: { type: 'string' }, key: { type: 'string' } } });
  const scopes = (values.scopes ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  // --tenant writes to the store directly (bootstrapping a tenant's first admin key); otherwise
  // the key is created through a gateway, for the admin key's own tenant.
  const url = values.tenant ? undefined : (values.url ?? process.env.TOOLGATE_URL);
  if (action !== 'create' || !values.principal || (!url && !values.tenant)) {
    console.error(USAGE);
    return 2;
  }
  if (url) return createThroughGateway(url, values.key ?? process.env.TOOLGATE_KEY, values.principal, scopes);
  const store = nodeStoreFromEnv(process.env, resolve(process.env.TOOLGATE_DATA_DIR ?? '.toolgate'));
  try {
    const { key } = await createApiKey(store, { tenant: values.tenant!, principal: values.principal, scopes });
    printKey(key, values.tenant!, values.principal, scopes);
    return 0;
  } finally {
    await store.close();
  }
}

async function createThroughGateway(url: string, adminKey: string | undefined, principal: string, scopes: string[]): Promise<number> {
  if (!adminKey) {
    console.error('toolgate keys create: pass --key or set TOOLGATE_KEY to an API key with the admin scope');
    return 2;
  }
  const response = await fetch(`${url.replace(/\/+$/, '')}/v1/admin/keys`, {
    method: 'POST',
    headers: { authorization: `Bearer ${adminKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ principal, scopes }),
  });
  const body = (await response.json()) as { key?: string; tenant?: string; error?: { message: string } };
  if (!response.ok || !body.key) {
    console.error(`toolgate keys create: ${url} answered ${response.status}: ${body.error?.message ?? 'no message'}`);
    return 1;
  }
  printKey(body.key, body.tenant ?? '?', principal, scopes);
  return 0;
}

function printKey(key: string, tenant: string, principal: string, scopes: string[]): void {
  console.log(key);
  console.error(`created a key for principal "${principal}" of tenant "${tenant}" with scopes [${scopes.join(', ')}]; it is shown only this once`);
}
