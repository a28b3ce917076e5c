/**
 * How many requests that wait on a call's record (a resumed MCP stream, GET /v1/calls with
 * `wait`) hold on this process at once. Each waits up to 25 s, reading the record every poll: a
 * store read the operator pays for (Upstash and DynamoDB bill each), for a GET that costs a client
 * nothing to send again. So one principal, or one tenant (whose admin can mint principals), may
 * have only so many waiting at a time here; a client has no use for more than one per call it
 * waits for.
 */

/** Waiting requests one principal may hold at once on one process. */
export const MAX_WAITING_PER_PRINCIPAL = 8;
/** Waiting requests one tenant's principals together may hold at once on one process. */
export const MAX_WAITING_PER_TENANT = 64;

/** Why a request was refused a place (each caller adds what to do). */
export const TOO_MANY_WAITING = `at most ${MAX_WAITING_PER_PRINCIPAL} requests of one caller (${MAX_WAITING_PER_TENANT} of one tenant) wait on calls at once (resumed MCP streams, GET /v1/calls with wait)`;

const waiting = new Map<string, number>();

const principalKey = (tenant: string, principal: string) => `p\u0000${tenant}\u0000${principal}`;
const tenantKey = (tenant: string) => `t\u0000${tenant}`;

/** A place for one more waiting request of `principal`, or undefined when it or its tenant has none left; `leave` gives it back. */
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
