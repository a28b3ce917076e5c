import { describe, expect, it } from 'vitest';
import { AuditRecorder } from '../../lib/audit/recorder.ts';
import { testGateway } from '../helpers/gateway.ts';
import { validManifest } from '../helpers/manifests.ts';

/**
 * A hostile model fills a thread with calls whose outputs are as large as audit keeps (100,000
 * characters each): the console's audit page must stay a bounded page, not every output in full.
 */
const ORIGIN = 'http://localhost';

describe('console: audit page of a thread of huge envelopes', () => {
  it('answers a bounded page (each envelope\'s data cut), with the chain still verified over all', async () => {
    const gw = await testGateway([validManifest({ tenant: 'acme' })], { alice: { tenant: 'acme', principal: 'alice', scopes: ['audit:read'] } });
    const audit = new AuditRecorder(gw.store);
    const output = 'A'.repeat(100_000);
    for (let batch = 0; batch < 6; batch++) {
      const drafts = Array.from({ length: 50 }, (_, i) => ({ type: 'tool.call.result' as const, call_id: `c${batch}-${i}`, tool: 'echo', principal: 'agent', args_hash: null, data: { status: 'ok', output } }));
      await audit.record({ tenant: 'acme', thread_id: 'big' }, drafts);
    }
    const signIn = await gw.app.request(`${ORIGIN}/console/sign-in`, { method: 'POST', body: 'credential=alice', headers: { 'content-type': 'application/x-www-form-urlencoded', origin: ORIGIN } });
    const cookie = signIn.headers.get('set-cookie')!.split(';')[0];
    const page = await (await gw.app.request(`${ORIGIN}/console/audit?thread_id=big`, { headers: { cookie } })).text();
    expect(page).toContain('data-chain="intact"');
    expect(page).toContain('all 300 envelopes verified');
    expect(page).toContain('data-seq="300"');
    expect(page.length).toBeLessThan(2_000_000);
    expect(page).toContain('data cut');
  });
});
