import { build } from 'esbuild';
import { Miniflare } from 'miniflare';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/processes.ts';
import { createFreshTable, DYNALITE_CREDENTIALS, DYNALITE_REGION, startDynalite, type RunningDynalite } from '../support/dynalite.ts';

/** A Worker that builds the store from its bindings and exercises each kind of item. */
const WORKER = `
import { dynamoDbStoreFromEnv } from './lib/stores/dynamodb/config.ts';
export default {
  async fetch(request, env) {
    const store = dynamoDbStoreFromEnv(env);
    const thread = { tenant: 'acme', thread_id: 'worker' };
    const claim = await store.claimWithHead('w', { state: 'in_progress', expires_at: Date.now() + 60000, data: { big: 'output ✓ '.repeat(20000) } }, thread);
    const commit = await store.commit({ record: { key: 'w', expect: { state: 'in_progress' }, next: { state: 'done', expires_at: 0, data: { ok: true } } }, append: { thread, expected: null, envelopes: [{ seq: 1, prev_hash: null, hash: 'h1' }] } });
    await store.addToIndex('versions', 'v1', 1);
    const got = await store.get('w');
    const audit = await store.listAudit(thread, { limit: 5 });
    const index = await store.listIndex('versions', { limit: 5 });
    await store.close();
    return Response.json({ claim, commit, got, audit, index });
  },
};`;

describe('DynamoDbStore inside workerd (no nodejs_compat)', () => {
  let dynalite: RunningDynalite;
  let mf: Miniflare;

  beforeAll(async () => {
    dynalite = await startDynalite();
    const table = await createFreshTable(dynalite.endpoint);
    // Bundled the way wrangler bundles a Worker: browser builds of packages. Without nodejs_compat
    // (as wrangler.toml deploys it) a node: import would fail to load, so this proves there is none.
    const bundle = await build({ stdin: { contents: WORKER, resolveDir: REPO_ROOT, loader: 'ts' }, bundle: true, write: false, format: 'esm', platform: 'browser', conditions: ['workerd', 'worker', 'browser'], external: ['node:*'], logLevel: 'silent' });
    mf = new Miniflare({
      modules: true,
      script: bundle.outputFiles[0].text,
      compatibilityDate: '2026-04-01',
      bindings: { TOOLGATE_DYNAMODB_TABLE: table, AWS_REGION: DYNALITE_REGION, TOOLGATE_DYNAMODB_ENDPOINT: dynalite.endpoint, AWS_ACCESS_KEY_ID: DYNALITE_CREDENTIALS.accessKeyId, AWS_SECRET_ACCESS_KEY: DYNALITE_CREDENTIALS.secretAccessKey },
    });
  }, 60_000);
  afterAll(async () => {
    await mf?.dispose();
    await dynalite?.stop();
  });

  it('claims, commits, reads and indexes through fetch', async () => {
    const response = await mf.dispatchFetch('http://worker/');
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      claim: { claim: { claimed: true }, head: null },
      commit: { record: { ok: true }, append: { ok: true, head: { seq: 1, hash: 'h1' } } },
      got: { state: 'done', expires_at: 0, data: { ok: true } },
      audit: { envelopes: [{ seq: 1, prev_hash: null, hash: 'h1' }] },
      index: [{ member: 'v1', score: 1 }],
    });
  });
});
