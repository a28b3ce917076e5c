import { describe, expect, it } from 'vitest';
import { enterWait, MAX_WAITING_PER_PRINCIPAL, MAX_WAITING_PER_TENANT } from '../../lib/limits/store-waits.ts';

/** The per-process cap of requests waiting on a call's record, per principal and per tenant. */
describe('waiting requests', () => {
  it("a tenant's principals together hold at most its places (minting principals gets no more); other tenants keep theirs", () => {
    const principals = MAX_WAITING_PER_TENANT / MAX_WAITING_PER_PRINCIPAL;
    const held = Array.from({ length: principals }, (_, p) => Array.from({ length: MAX_WAITING_PER_PRINCIPAL }, () => enterWait('acme', `minted-${p}`)));
    expect(held.flat().every(Boolean)).toBe(true);
    expect(enterWait('acme', 'one-more')).toBeUndefined();
    const elsewhere = enterWait('globex', 'minted-0');
    expect(elsewhere).toBeDefined();
    // Giving a place back twice frees one place, not two.
    held[0][0]!.leave();
    held[0][0]!.leave();
    const next = enterWait('acme', 'one-more');
    expect(next).toBeDefined();
    expect(enterWait('acme', 'another')).toBeUndefined();
    for (const place of [...held.flat(), next, elsewhere]) place!.leave();
    const again = enterWait('acme', 'minted-0');
    expect(again).toBeDefined();
    again!.leave();
  });
});
