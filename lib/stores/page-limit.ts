/**
 * Page sizes are whole numbers of at least 1. Anything else is a caller's bug that must not reach
 * the backend: SQLite reads `LIMIT -1` as "no limit", Redis `LIMIT 0 -1` likewise, `0.5` reads
 * nothing, and a caller that pages until a page comes back short loops forever on either.
 */
export function checkPageLimit(limit: number, what: string): void {
  if (!Number.isSafeInteger(limit) || limit < 1) throw new RangeError(`${what}: the page limit must be a whole number of at least 1, got ${limit}`);
}
