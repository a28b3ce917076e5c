/**
 * Whether a stored manifest passed this gateway's publish checks (lib/registry/manifest/loader.ts:
 * the document, every tool's schema lint, schema cost and patterns, executors, secrets, rules).
 * Publishing through the checks writes MANIFEST_CHECKS into the store's record; a record without
 * it (written straight into the store, or by a gateway whose checks differed) is not trusted, and
 * each tool's schema is checked again when it is first compiled. Change MANIFEST_CHECKS whenever
 * a check is added or tightened, so what older gateways accepted is checked again.
 */
export const MANIFEST_CHECKS = 'toolgate.publish-checks/2';

export function passedTheseChecks(record: { checked?: unknown }): boolean {
  return record.checked === MANIFEST_CHECKS;
}
