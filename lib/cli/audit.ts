import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { verifyChain, type ChainCheck } from '../audit/verify.ts';
import type { Store, StoredEnvelope } from '../stores/store.ts';
import { nodeStoreFromEnv } from './node-store.ts';

const USAGE = `Usage: toolgate audit verify --thread ID [--tenant T]            (reads the store of TOOLGATE_STORE, default .toolgate/toolgate.db)
       toolgate audit verify --thread ID --url URL [--key KEY]        (reads GET /v1/audit; key from TOOLGATE_KEY)

Recomputes the thread's hash chain and reports the first broken link; exits 1 if there is one.`;

const PAGE = 500;

async function* fromStore(store: Store, tenant: string, thread_id: string): AsyncGenerator<StoredEnvelope> {
  let after_seq: number | undefined;
  do {
    const page = await store.listAudit({ tenant, thread_id }, { after_seq, limit: PAGE });
    yield* page.envelopes;
    after_seq = page.next_after_seq;
  } while (after_seq !== undefined);
}

async function* fromGateway(url: string, key: string, thread_id: string): AsyncGenerator<StoredEnvelope> {
  let cursor: string | undefined;
  do {
    const query = new URLSearchParams({ thread_id, limit: String(PAGE), ...(cursor ? { cursor } : {}) });
    const response = await fetch(`${url.replace(/\/+$/, '')}/v1/audit?${query}`, { headers: { authorization: `Bearer ${key}` } });
    const body = (await response.json()) as { envelopes?: StoredEnvelope[]; next_cursor?: string; error?: { message: string } };
    if (!response.ok) throw new Error(`${url} answered ${response.status}: ${body.error?.message ?? 'no message'}`);
    yield* body.envelopes ?? [];
    cursor = body.next_cursor;
  } while (cursor !== undefined);
}

function report(thread: string, check: ChainCheck): number {
  if (check.ok) {
    console.log(`thread "${thread}": ${check.count} envelopes, chain intact${check.head ? ` (head ${check.head})` : ''}`);
    return 0;
  }
  console.error(`thread "${thread}": chain broken at seq ${check.broken_at} (envelope ${check.envelope_id}): ${check.reason}`);
  return 1;
}

/** `toolgate audit verify`. */
export async function auditCommand(args: string[]): Promise<number> {
  const [action, ...rest] = args;
  const { values } = parseArgs({ args: rest, options: { thread: { type: 'string' }, tenant: { type: 'string' }, url: { type: 'string' }, key: { type: 'string' } } });
  if (action !== 'verify' || !values.thread) {
    console.error(USAGE);
    return 2;
  }
  if (values.url) {
    const key = values.key ?? process.env.TOOLGATE_KEY;
    if (!key) {
      console.error('toolgate audit verify: pass --key or set TOOLGATE_KEY to an API key with the audit:read scope');
      return 2;
    }
    return report(values.thread, await verifyChain(fromGateway(values.url, key, values.thread)));
  }
  const store = nodeStoreFromEnv(process.env, resolve(process.env.TOOLGATE_DATA_DIR ?? '.toolgate'));
  try {
    return report(values.thread, await verifyChain(fromStore(store, values.tenant ?? 'demo', values.thread)));
  } finally {
    await store.close();
  }
}
