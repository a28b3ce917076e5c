import { Hono } from 'hono';
import { planAnthropicNativeCalls } from '../../dispatch/formats/anthropic-native.ts';
import { PROVIDER_FORMATS } from '../../dispatch/formats/index.ts';
import { dispatchPlanned } from '../../dispatch/planned-batch.ts';
import { MAX_IDEMPOTENCY_KEY } from '../../idempotency/keys.ts';
import { deferFor } from '../defer.ts';
import { parseDispatchRequest } from '../dispatch-request.ts';
import type { GatewayEnv } from '../env.ts';
import { errorResponse, readJsonBody } from '../errors.ts';
import { connectionCaller } from '../connection-caller.ts';


/** POST /v1/dispatch: always 200 with per-call results, whatever the tools did. */
export function dispatchRoutes(env: Readonly<Record<string, string | undefined>>) {
  const routes = new Hono<GatewayEnv>();

  routes.post('/', async (c) => {
    const idempotencyKey = c.req.header('idempotency-key');
    if (idempotencyKey !== undefined && (idempotencyKey === '' || idempotencyKey.length > MAX_IDEMPOTENCY_KEY)) {
      return errorResponse(c, 400, 'invalid_request', `the Idempotency-Key header must be 1-${MAX_IDEMPOTENCY_KEY} characters`);
    }
    const read = await readJsonBody(c);
    if (!read.ok) return read.response;
    const parsed = await parseDispatchRequest(read.body, idempotencyKey);
    if (!parsed.ok) return errorResponse(c, 400, 'invalid_request', parsed.message);
    const { request } = parsed;
    const principal = c.get('principal');
    if (request.tenant !== undefined && request.tenant !== principal.tenant) return errorResponse(c, 404, 'not_found', `tenant "${request.tenant}" not found`);
    const runtime = c.get('runtime');
    const caller = {
      tenant: principal.tenant,
      principal: principal.principal,
      ...(principal.lineage ? { lineage: principal.lineage } : {}),
      ...(principal.claims ? { claims: principal.claims } : {}),
      scopes: new Set(principal.scopes),
      thread_id: request.thread_id,
      env,
      manifest_version: runtime.manifest.version,
      defer: deferFor(c),
      trace: c.get('span')?.context,
      connect: connectionCaller(c),
      tool_format: request.format ?? 'toolgate',
    };
    // Anthropic's native text editor and bash run as the tenant's coding tools (same pipeline).
    const registered = { isRegistered: (name: string) => runtime.registry.has(name) };
    const planned = request.format === 'anthropic' ? planAnthropicNativeCalls(request.calls, registered) : request.calls.map((call) => ({ call }));
    const results = await dispatchPlanned(runtime.deps, caller, planned, { parallel: request.parallel });
    const messages = request.format ? PROVIDER_FORMATS[request.format].writeResults(results, request.calls) : undefined;
    return c.json({ thread_id: request.thread_id, manifest_version: runtime.manifest.version, results, ...(messages ? { messages } : {}) });
  });

  return routes;
}
