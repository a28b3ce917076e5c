import { describe, expect, it } from 'vitest';
import { DEFAULT_LEASE_GRACE_MS, leaseGraceFromEnv, leaseMsFor } from '../../lib/dispatch/lease.ts';
import { createRuntimeGateway } from '../../lib/http/runtime-gateway.ts';

describe('TOOLGATE_LEASE_GRACE_MS', () => {
  it('defaults to 30 s and accepts whole milliseconds', () => {
    expect(leaseGraceFromEnv(undefined)).toBe(DEFAULT_LEASE_GRACE_MS);
    expect(leaseGraceFromEnv('')).toBe(30_000);
    expect(leaseGraceFromEnv('0')).toBe(0);
    expect(leaseGraceFromEnv('1500')).toBe(1500);
    expect(leaseMsFor(2000, 500)).toBe(2500);
    expect(leaseMsFor(2000, undefined)).toBe(32_000);
  });

  it('refuses anything else at start-up, saying what to set', () => {
    for (const bad of ['-1', '1.5', '30s', 'abc', '1e3', '99999999999999999999']) {
      expect(() => leaseGraceFromEnv(bad)).toThrow(`TOOLGATE_LEASE_GRACE_MS must be a whole number of milliseconds (e.g. 30000), got "${bad}"`);
    }
    expect(() => createRuntimeGateway({ runtime: 'node', env: { TOOLGATE_STORE: 'memory', TOOLGATE_LEASE_GRACE_MS: 'soon' } })).toThrow(/TOOLGATE_LEASE_GRACE_MS must be a whole number/);
  });
});
