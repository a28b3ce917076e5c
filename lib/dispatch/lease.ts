/**
 * How long after a tool's timeout its call is given up on. A claim that never reached its side
 * effect may be taken over then (the call runs, once); a side effect that started and has not
 * completed by then is settled as `indeterminate`. The grace covers the store round trips and
 * a slow event loop around the tool's own timeout.
 */
export const DEFAULT_LEASE_GRACE_MS = 30_000;

/** The lease (and execution deadline) of a call with this timeout. */
export function leaseMsFor(timeoutMs: number, graceMs: number | undefined): number {
  return timeoutMs + (graceMs ?? DEFAULT_LEASE_GRACE_MS);
}

/** TOOLGATE_LEASE_GRACE_MS: milliseconds, a whole number ≥ 0; throws a message that says what to set. */
export function leaseGraceFromEnv(value: string | undefined): number {
  if (value === undefined || value === '') return DEFAULT_LEASE_GRACE_MS;
  const ms = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(ms)) {
    throw new Error(`TOOLGATE_LEASE_GRACE_MS must be a whole number of milliseconds (e.g. 30000), got "${value}"`);
  }
  return ms;
}
