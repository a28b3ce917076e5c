import { describe, expect, it } from 'vitest';
import { FileOperationShares } from '../../lib/exec/server/file-operation-shares.ts';

describe('FileOperationShares: file operations wait in line for a slot their tenant may take', () => {
  it('one tenant (or none named): at most its number at once, and a released slot only once', async () => {
    const slots = new FileOperationShares(2, []);
    const first = (await slots.take('', 0))!;
    expect(await slots.take('', 0)).toBeDefined();
    expect(await slots.take('', 10)).toBeUndefined();
    first();
    first();
    expect(slots.taken).toBe(1);
    expect(await slots.take('', 0)).toBeDefined();
    expect(await slots.take('', 10)).toBeUndefined();
  });

  it('hands a released slot to the longest waiter, and gives up on a waiter after its time', async () => {
    const slots = new FileOperationShares(1, ['solo']);
    const release = (await slots.take('solo', 0))!;
    const order: string[] = [];
    const a = slots.take('solo', 5_000).then((r) => (order.push('a'), r));
    const b = slots.take('solo', 5_000).then((r) => (order.push('b'), r));
    expect(await slots.take('solo', 20)).toBeUndefined();
    release();
    (await a)!();
    (await b)!();
    expect(order).toEqual(['a', 'b']);
    expect(slots.taken).toBe(0);
  });

  it("two tenants: one tenant's line never stands in front of the other's share", async () => {
    const slots = new FileOperationShares(4, ['hog', 'other']);
    expect(slots.guaranteed).toBe(2);
    const held = [(await slots.take('hog', 0))!, (await slots.take('hog', 0))!];
    // The hog's third and fourth wait: the two free slots are the other tenant's guarantee.
    const order: string[] = [];
    const hogWaiting = [slots.take('hog', 5_000), slots.take('hog', 300)].map((taken, index) => taken.then((r) => (order.push(`hog${index}`), r)));
    const otherFirst = (await slots.take('other', 0))!;
    order.push('other');
    expect(slots.taken).toBe(3);
    // A hog slot freed goes to the hog's first waiter, in order of arrival.
    held[0]();
    expect(await hogWaiting[0]).toBeDefined();
    expect(order).toEqual(['other', 'hog0']);
    otherFirst();
    // Free again is the other tenant's guarantee, not the hog's: its second waiter gives up.
    expect(await hogWaiting[1]).toBeUndefined();
    expect(await slots.take('other', 0)).toBeDefined();
  });

  it('a waiter that gave up is passed over: the next in its line is served', async () => {
    const slots = new FileOperationShares(1, ['solo']);
    const release = (await slots.take('solo', 0))!;
    const gaveUp = slots.take('solo', 10);
    const next = slots.take('solo', 5_000);
    expect(await gaveUp).toBeUndefined();
    // Arriving after them, this one waits behind the live waiter.
    const last = slots.take('solo', 5_000);
    release();
    (await next)!();
    (await last)!();
    expect(slots.taken).toBe(0);
  });

  it('refuses a limit below 1', () => {
    expect(() => new FileOperationShares(0, [])).toThrow(/at least 1/);
  });
});
