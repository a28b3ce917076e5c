import { describe, expect, it } from 'vitest';
import { loadManifest } from '../../lib/registry/manifest/loader.ts';
import { testGateway } from '../helpers/gateway.ts';
import { baseManifest, loaderOptions, validManifest } from '../helpers/manifests.ts';

const schema = { type: 'object', properties: { text: { type: 'string' } } };
const echo = (name: string, extra: Record<string, unknown> = {}) => ({ name, tier: 'write', executor: { kind: 'builtin', name: 'echo' }, input_schema: schema, ...extra });
const problems = (limits: unknown[], tools: unknown[] = [echo('echo')]) => {
  const loaded = loadManifest(baseManifest({ limits: limits as never, tools }), loaderOptions());
  return loaded.ok ? [] : loaded.problems;
};

describe('limits at publish', () => {
  it('the issue\'s shape publishes', () => {
    expect(problems([{ tools: 'echo', per: 'principal', max: 10, window_seconds: 3600 }])).toEqual([]);
  });

  it('refuses limits that cannot mean anything, each at its JSON path', () => {
    expect(problems([{ tools: 'echo', max: 10 }])).toEqual([{ path: '$.limits[0]', message: expect.stringMatching(/needs "max" and "window_seconds".*"window_seconds" is missing/) }]);
    expect(problems([{ max: 10, window_seconds: 60, concurrency: 2 }])[0]).toMatchObject({ path: '$.limits[0]', message: expect.stringMatching(/not both/) });
    expect(problems([{ concurrency: 2, window: 'sliding' }])[0]).toMatchObject({ path: '$.limits[0].window' });
    expect(problems([{ counts: 'requests', tools: 'echo', per: 'tool', max: 5, window_seconds: 1 }]).map((p) => p.path)).toEqual(['$.limits[0].tools', '$.limits[0].per']);
    expect(problems([{ max: 10, window_seconds: 60 }, { max: 20, window_seconds: 60 }])[0]).toMatchObject({ path: '$.limits[1]', message: expect.stringMatching(/same counter as \$\.limits\[0\].*different "name"/) });
    expect(problems([{ tools: 'echo', max: 0, window_seconds: 60 }])[0].path).toBe('$.limits[0].max');
    expect(problems([{ tools: 'echo', per: 'everyone', max: 1, window_seconds: 60 }])[0].path).toBe('$.limits[0].per');
    expect(problems([{ tools: 'echo; drop', max: 1, window_seconds: 60 }])[0].path).toBe('$.limits[0].tools');
  });

  it('a tool that costs more than a cost limit allows could never run: refused at the tool\'s cost', () => {
    expect(problems([{ tools: 'refund*', weight: 'cost', max: 100, window_seconds: 86400 }], [echo('refund_big', { cost: 500 }), echo('echo', { cost: 500 })])).toEqual([
      { path: '$.tools[0].cost', message: expect.stringMatching(/is 500, more than the 100 that \$\.limits\[0\] allows.*refund_big could ever run/) },
    ]);
  });
});

describe('limits over HTTP', () => {
  const manifest = () =>
    validManifest({
      tenant: 'acme',
      policy: { write: 'grant', rules: [{ tool: 'refund', action: 'review' }] },
      tools: [echo('echo'), echo('refund', { cost: 40 })],
      limits: [
        { tools: 'echo', per: 'principal', max: 2, window_seconds: 3600, description: 'two echoes an hour' },
        { name: 'refund-budget', tools: 'refund', weight: 'cost', max: 100, window_seconds: 86400 },
        { counts: 'requests', per: 'principal', max: 6, window_seconds: 60 },
      ],
    });
  const dispatch = (gw: Awaited<ReturnType<typeof testGateway>>, call_id: string, name = 'echo', key = 'agent') =>
    gw.request('/v1/dispatch', { key, json: { thread_id: 'th', calls: [{ call_id, name, arguments: { text: call_id } }] } });

  it('a call over its limit is rate_limited for the model; parked calls count their cost when parked; a request over the request limit is 429 with Retry-After; metrics and audit say so', async () => {
    const gw = await testGateway([manifest()], { agent: { tenant: 'acme', principal: 'agent', scopes: ['audit:read', 'approvals:read'] }, other: { tenant: 'acme', principal: 'other' } }, { serveMetrics: true });
    const statuses = [];
    for (const id of ['e1', 'e2', 'e3']) statuses.push((await (await dispatch(gw, id)).json()).results[0]);
    expect(statuses.map((r) => r.status)).toEqual(['ok', 'ok', 'rate_limited']);
    expect(statuses[2].content).toMatch(/^Tool `echo` was not run: this tenant allows at most 2 calls of echo per principal per 1 hour \(two echoes an hour\), and that is used up\. Nothing was executed\. Retry after .* \(in \d+ s\)/);
    // Two refunds of cost 40 park (80 of 100); the third would make 120: refused before any approver is asked.
    const refunds = [];
    for (const id of ['r1', 'r2', 'r3']) refunds.push((await (await dispatch(gw, id, 'refund')).json()).results[0]);
    expect(refunds.map((r) => r.status)).toEqual(['pending_approval', 'pending_approval', 'rate_limited']);
    expect(refunds[2].error.details).toMatchObject({ limit: 'refund-budget', max: 100, weight: 40, used: 80 });
    const pending = await (await gw.request('/v1/approvals?state=pending', { key: 'agent' })).json();
    expect(pending.approvals).toHaveLength(2);
    // The 7th request of this principal within the minute: 429, nothing runs; another principal is not affected.
    const seventh = await dispatch(gw, 'e4');
    expect(seventh.status).toBe(429);
    expect(Number(seventh.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await seventh.json()).toMatchObject({ error: { code: 'rate_limited', details: { per: 'principal', max: 6, window_seconds: 60 } } });
    expect((await dispatch(gw, 'o1', 'echo', 'other')).status).toBe(200);

    const metrics = await (await gw.request('/metrics')).text();
    expect(metrics).toContain('toolgate_tools_dispatch_total{status="rate_limited"} 2');
    expect(metrics).toMatch(/toolgate_limits_refused_total\{tenant="acme",limit="refund-budget"\} 1/);
    expect(metrics).toMatch(/toolgate_limits_refused_total\{tenant="acme",limit="requests:\*:principal:fixed\/60s"\} 1/);
    const audit = await (await gw.request('/v1/audit?thread_id=th', { key: 'agent' })).json();
    const limited = audit.envelopes.filter((e: { type: string; data?: { status?: string } }) => e.data?.status === 'rate_limited');
    expect(limited.length).toBeGreaterThanOrEqual(1);
  });
});
