/**
 * How many resumed streams (resume.ts) wait on this process at once. Each waits up to 25 s,
 * reading its call's record every poll: a store read the operator pays for (Upstash and DynamoDB
 * bill each), and a GET that costs a client nothing to send again. So one principal, or one
 * tenant (whose admin can mint principals), may have only so many waiting at a time here; a
 * client has no use for more than one per call its dropped streams were running.
 */

/** Resumed streams one principal may have waiting at once on one process. */
export const MAX_WAITING_PER_PRINCIPAL = 8;
/** Resumed streams one tenant's principals together may have waiting at once on one process. */
export const MAX_WAITING_PER_TENANT = 64;

const waiting = new Map<string, number>();

const principalKey = (tenant: string, principal: string) => `p\u0000${tenant}\u0000${principal}`;
const tenantKey = (tenant: string) => `t\u0000${tenant}`;

/** A place for one more waiting stream of `principal`, or undefined when it or its tenant has none left; `leave` gives it back. */
export function enterWait(tenant: string, principal: string): { leave(): void } | undefined {
  const keys = [principalKey(tenant, principal), tenantKey(tenant)];
  if ((waiting.get(keys[0]) ?? 0) >= MAX_WAITING_PER_PRINCIPAL || (waiting.get(keys[1]) ?? 0) >= MAX_WAITING_PER_TENANT) return undefined;
  for (const key of keys) waiting.set(key, (waiting.get(key) ?? 0) + 1);
  let left = false;
  return {
    leave() {
      if (left) return;
      left = true;
      for (const key of keys) {
        const count = (waiting.get(key) ?? 1) - 1;
        if (count > 0) waiting.set(key, count);
        else waiting.delete(key);
      }
    },
  };
}
