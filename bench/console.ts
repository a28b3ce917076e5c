import { gzipSync } from 'node:zlib';
import { apiCaller, createDemoGateway, DEMO_KEYS, seedDemo } from '../scripts/console-demo.ts';
import type { BenchModule, Figures } from './harness.ts';
import { round } from './harness.ts';
import { distribution, timeEachAsync } from './stats.ts';

const ITERATIONS = 200;
const WARMUP = 30;
/** Realistic for one tenant's console: a screenful of waiting calls, a long support thread, a tenant's release history. */
const SIZES = { pending: 20, auditedCalls: 25, versions: 12 };

/**
 * The console's pages as served: bytes of HTML (everything a page loads: the stylesheet and the
 * one script are inline, no external assets) raw and gzipped, and the server-side time to answer
 * a signed-in GET (session check through the Authenticator, store reads, the chain verification
 * on the audit page, rendering) through the app's fetch on a memory store, no network.
 */
export const consoleBench: BenchModule = {
  name: 'console',
  title: 'operator console pages: bytes per page (HTML as served, gzip) and server-side render time (median/p90 µs) with demo data',
  async run(): Promise<Figures> {
    const { gateway } = await createDemoGateway();
    const request = (path: string, init?: RequestInit) => gateway.app.request(`http://localhost${path}`, init);
    await seedDemo(apiCaller(request), SIZES);
    const signIn = await request('/console/sign-in', { method: 'POST', body: new URLSearchParams({ credential: DEMO_KEYS.alice }), headers: { origin: 'http://localhost', 'content-type': 'application/x-www-form-urlencoded' } });
    const cookie = signIn.headers.get('set-cookie')!.split(';')[0];
    const approvalId = /data-approval="(apr_[0-9a-f]+)"/.exec(await (await request('/console/approvals', { headers: { cookie } })).text())![1];
    const pages: Record<string, string> = {
      sign_in: '/console/sign-in',
      approvals: '/console/approvals',
      approval: `/console/approvals/${approvalId}`,
      audit: '/console/audit?thread_id=support-42',
      manifests: `/console/manifests?from=1&to=${SIZES.versions}`,
      keys: '/console/keys',
    };
    const figures: Figures = { pending_approvals: SIZES.pending, audit_envelopes: 0, manifest_versions: SIZES.versions };
    for (const [name, path] of Object.entries(pages)) {
      const response = await request(path, { headers: { cookie } });
      if (response.status !== 200) throw new Error(`${path} answered ${response.status}`);
      const body = new Uint8Array(await response.arrayBuffer());
      if (name === 'audit') figures.audit_envelopes = (new TextDecoder().decode(body).match(/data-seq=/g) ?? []).length;
      figures[`${name}_bytes`] = body.byteLength;
      figures[`${name}_gzip_bytes`] = gzipSync(body, { level: 9 }).byteLength;
      const samples = await timeEachAsync(ITERATIONS, WARMUP, async () => {
        const answer = await request(path, { headers: { cookie } });
        await answer.arrayBuffer();
      });
      const stats = distribution(samples);
      figures[`${name}_render_p50_us`] = stats.p50;
      figures[`${name}_render_p90_us`] = stats.p90;
    }
    figures.iterations = ITERATIONS;
    return Object.fromEntries(Object.entries(figures).map(([k, v]) => [k, typeof v === 'number' ? round(v) : v]));
  },
};
