import { Hono } from 'hono';
import type { Store } from '../../stores/store.ts';
import { requireScope } from '../auth.ts';
import type { GatewayEnv } from '../env.ts';
import { THREAD_ID } from '../identifiers.ts';
import { cursorQuery, identifierQuery, integerQuery } from '../params.ts';

const PAGE = { min: 1, max: 500, default: 100 };

/** GET /v1/audit?thread_id=&cursor=&limit=: the caller's tenant's envelopes of one thread, in order. */
export function auditRoutes(store: Store) {
  const routes = new Hono<GatewayEnv>();
  routes.get('/', requireScope('audit:read'), async (c) => {
    const thread_id = identifierQuery(c, 'thread_id', THREAD_ID);
    const after_seq = cursorQuery(c);
    const limit = integerQuery(c, 'limit', PAGE);
    const page = await store.listAudit({ tenant: c.get('principal').tenant, thread_id }, { after_seq, limit });
    return c.json({ thread_id, envelopes: page.envelopes, ...(page.next_after_seq !== undefined ? { next_cursor: String(page.next_after_seq) } : {}) });
  });
  return routes;
}
