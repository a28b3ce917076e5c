import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../../lib/stores/memory.ts';
import type { StateRecord } from '../../lib/stores/store.ts';
import { testGateway } from '../helpers/gateway.ts';
import { validManifest } from '../helpers/manifests.ts';

class CountingStore extends MemoryStore {
  reads: string[] = [];
  override async get(key: string): Promise<StateRecord | undefined> {
    this.reads.push(key);
    return super.get(key);
  }
}

describe('the tenant directory under names of tenants that do not exist', () => {
  it('remembers absent names only up to its bound, and keeps serving real tenants from its cache', async () => {
    const store = new CountingStore();
    const gw = await testGateway([validManifest({ tenant: 'acme' })], {}, { store, manifestCacheMs: 60_000 });
    expect(await gw.tenants.runtime('acme')).toBeDefined();
    expect(await gw.tenants.runtime('ghost-0')).toBeUndefined();
    const readsOf = (tenant: string) => store.reads.filter((key) => key.includes(tenant)).length;
    await gw.tenants.runtime('ghost-0');
    expect(readsOf('ghost-0')).toBe(1); // cached while there is room
    // Anyone can name tenants (a token's X-Toolgate-Tenant, the discovery route): 10,000 more names.
    for (let i = 1; i <= 10_000; i++) await gw.tenants.runtime(`ghost-${i}-x`);
    await gw.tenants.runtime('ghost-0');
    expect(readsOf('ghost-0')).toBe(2); // forgotten: the cache did not grow past its bound
    const acmeReads = readsOf('acme');
    expect(await gw.tenants.runtime('acme')).toBeDefined();
    expect(readsOf('acme')).toBe(acmeReads); // the real tenant stayed cached
  });
});
