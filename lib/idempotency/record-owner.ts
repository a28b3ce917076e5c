import type { StateRecord } from '../stores/store.ts';

/**
 * Whether a call's record is `principal`'s own. A key names a tenant, a thread and a call id (or
 * the arguments): things another principal of the tenant may know or guess, so the key alone
 * proves nothing. Every record names the principal whose call it holds, and answers (a replay, a
 * poll, a resumed stream, a posted client result) only that principal. A record naming no
 * principal (written before records named one) is no one's: it expires with its TTL.
 */
export function ownedBy(record: StateRecord, principal: string): boolean {
  return record.data.principal === principal;
}
