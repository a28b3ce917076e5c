import { resolve } from 'node:path';
import { verifyChain, type ChainCheck } from '../audit/verify.ts';
import { SqliteStore } from '../stores/sqlite/sqlite-store.ts';
import type { Store, StoredEnvelope } from '../stores/store.ts';
import { textOf, type Invocation } from './command-line.ts';
import { fetchGateway } from './gateway-fetch.ts';
import { nodeStoreFromEnv } from './node-store.ts';

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
    const response = await fetchGateway(url, `${url.replace(/\/+$/, '')}/v1/audit?${query}`, { headers: { authorization: `Bearer ${key}` } });
    const body = (await response.json()) as { envelopes?: StoredEnvelope[]; next_cursor?: string; error?: { message: string } };
    if (!response.ok) throw new Error(`${url} answered ${response.status}: ${body.error?.message ?? 'no message'}`);
    yield* body.envelopes ?? [];
    cursor = body.next_cursor;
  } while (cursor !== undefined);
}

/**
 * The chain's verdict. No envelopes is no thread: a typo, or another tenant's or store's thread,
 * which must not pass for an intact chain.
 */
function report(thread: string, check: ChainCheck, where: string): number {
  if (check.ok && check.count === 0) {
    console.error(`thread "${thread}": no envelopes in ${where}; no such thread there (check the id, and --tenant or --url)`);
    return 1;
  }
  if (check.ok) {
    console.log(`thread "${thread}": ${check.count} envelopes, chain intact${check.head ? ` (head ${check.head})` : ''}`);
    return 0;
  }
  console.error(`thread "${thread}": chain broken at seq ${check.broken_at} (envelope ${check.envelope_id}): ${check.reason}`);
  return 1;
}

/** `toolgate audit verify`, its command line parsed (command-tree.ts). */
export async function auditVerifyCommand(invocation: Invocation): Promise<number> {
  const thread = textOf(invocation, 'thread');
  const url = textOf(invocation, 'url');
  if (!thread) {
    console.error('toolgate audit verify: --thread ID is required (the thread whose chain to check); see toolgate audit verify --help');
    return 2;
  }
  if (url) {
    const key = textOf(invocation, 'key') ?? process.env.TOOLGATE_KEY;
    if (!key) {
      console.error('toolgate audit verify: pass --key or set TOOLGATE_KEY to an API key with the audit:read scope');
      return 2;
    }
    return report(thread, await verifyChain(fromGateway(url, key, thread)), `the audit of ${url} (the key's tenant)`);
  }
  const tenant = textOf(invocation, 'tenant') ?? 'demo';
  const store = nodeStoreFromEnv(process.env, resolve(process.env.TOOLGATE_DATA_DIR ?? '.toolgate'));
  try {
    return report(thread, await verifyChain(fromStore(store, tenant, thread)), `tenant "${tenant}" of the store ${store.name}${store instanceof SqliteStore ? ` (${store.path})` : ''}`);
  } finally {
    await store.close();
  }
}
