import { AuditRecorder } from '../audit/recorder.ts';
import { silentLogger } from '../dispatch/events.ts';
import { ApiKeyResolver, createApiKey } from '../governance/api-keys.ts';
import { MemoryStore } from '../stores/memory.ts';
import { dispatchCall } from '../dispatch/pipeline.ts';
import { buildTenantRuntime, type GatewayServices } from '../dispatch/tenant-runtime.ts';
import type { Manifest } from '../registry/manifest/manifest.ts';
import { createSchemaValidator } from '../validation/select-engine.ts';
import { parseDispatchRequest } from './dispatch-request.ts';
import { parseJsonBody } from './json-body.ts';

/** A tenant no store holds: the warm-up's calls are dispatched through it and thrown away. */
const WARM_UP_MANIFEST: Manifest = {
  format: 'toolgate.manifest/v1',
  tenant: 'toolgate-warm-up',
  version: '1',
  profile: 'openai',
  policy: { read: 'grant', write: 'deny', execute: 'deny' },
  tools: [
    {
      name: 'echo',
      description: 'Warm-up only.',
      tier: 'read',
      input_schema: { type: 'object', properties: { text: { type: 'string', maxLength: 100 } }, required: ['text'], additionalProperties: false },
      executor: { kind: 'builtin' },
    },
  ],
};

const WARM_UP_KEY = 'tg_warm_up_0000000000000000000000000000';

const WARM_UP_BODY = { thread_id: 'warm-up', calls: [{ call_id: 'warm-up-1', name: 'echo', arguments: { text: 'warm' } }] };

/**
 * Work a new isolate would otherwise do inside its first request, done while the Worker's module
 * loads: Cloudflare bills a request's CPU time (10 ms on the free plan), not the isolate's
 * start-up (its own limit is 1 s), and V8 compiles each function the first time it runs. So the
 * router builds its matcher, a key is made and checked, and one call goes through the request's
 * parsing and the pipeline (lookup, scopes, validation with the eval-free engine, policy, claim,
 * execution, audit) of a tenant that only exists here, in a memory store nobody else reads: no
 * metrics, tracing or log, so nothing anyone can see changes. Module scope allows no I/O, timers
 * or random values; a stage that needs them fails inside the throwaway call, which is answered
 * and dropped, never thrown.
 */
export function warmStart(app: { router: { match(method: string, path: string): unknown } }, services: GatewayServices): Promise<WarmStart> {
  app.router.match('POST', '/v1/dispatch');
  const store = new MemoryStore();
  const throwaway: GatewayServices = {
    ...services,
    // Named: the gateway's own `auto` engine must make its choice inside a request, not here.
    validator: createSchemaValidator('cfworker'),
    store,
    audit: new AuditRecorder(store),
    metrics: undefined,
    tracer: undefined,
    events: undefined,
    notifierFor: undefined,
    log: silentLogger,
  };
  return Promise.all([warmUpCall(throwaway), warmUpKey(store)]).then(
    ([call, key]) => ({ call, key }),
    () => ({ call: 'failed', key: false }),
  );
}

/** How far the warm-up got (tests read it): the throwaway call's status, and whether its key authenticated. */
export interface WarmStart {
  call: string;
  key: boolean;
}

/** A key made and checked in the throwaway store: what the first request's authentication runs. */
async function warmUpKey(store: MemoryStore): Promise<boolean> {
  const { key } = await createApiKey(store, { tenant: WARM_UP_MANIFEST.tenant, principal: 'warm-up', scopes: [] }, WARM_UP_KEY);
  return (await new ApiKeyResolver(store).check(key)).ok;
}

async function warmUpCall(services: GatewayServices): Promise<string> {
  const parsed = parseJsonBody(new TextEncoder().encode(JSON.stringify(WARM_UP_BODY)).buffer as ArrayBuffer);
  if (!parsed.ok) return parsed.code;
  const request = await parseDispatchRequest(parsed.value, undefined);
  if (!request.ok) return 'invalid_request';
  const runtime = buildTenantRuntime(WARM_UP_MANIFEST, services);
  const caller = { tenant: runtime.manifest.tenant, principal: 'warm-up', scopes: new Set<string>(), thread_id: request.request.thread_id, env: {} };
  const [call] = request.request.calls;
  return (await dispatchCall(runtime.deps, caller, call!)).status;
}
