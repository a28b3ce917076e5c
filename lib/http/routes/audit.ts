import { Hono } from 'hono';
import type { Store } from '../../stores/store.ts';
import { requireScope } from '../auth.ts';
import type { GatewayEnv } from '../env.ts';
import { errorResponse } from '../errors.ts';

const MAX_PAGE = 500;

/** GET /v1/audit?thread_id=&cursor=&limit=: the caller's tenant's envelopes of one thread, in order. */
export function auditRoutes(store: Store) {
  const routes = new Hono<GatewayEnv>();
  routes.get('/', requireScope('audit:read'), async (c) => {
    const thread_id = c.req.query('thread_id');
    if (!thread_id) return errorResponse(c, 400, 'invalid_request', 'thread_id is required');
    const cursor = c.req.query('cursor');
    if (cursor !== undefined && !/^\d+$/.test(cursor)) return errorResponse(c, 400, 'invalid_request', 'cursor must be the next_cursor of a previous page');
    const limit = Math.min(Number(c.req.query('limit') ?? 100) || 100, MAX_PAGE);
    const page = await store.listAudit({ tenant: c.get('principal').tenant, thread_id }, { after_seq: cursor === undefined ? undefined : Number(cursor), limit });
    return c.json({ thread_id, envelopes: page.envelopes, ...(page.next_after_seq !== undefined ? { next_cursor: String(page.next_after_seq) } : {}) });
  });
  return routes;
}
