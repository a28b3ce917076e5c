import type { CompiledSchema } from './validator.ts';

/** Calls a checked schema's eval-free validator answers before ajv compiles its own. */
export const TIER_UP_AFTER_CALLS = 16;

/**
 * A schema stored as checked, on the ajv engine: its first calls are answered by the eval-free
 * engine's validator (nothing to generate, cheap to build), and only a tool called more often
 * gets ajv's generated validator, compiled by the call that reaches TIER_UP_AFTER_CALLS; from
 * then on ajv answers. So a new process's first dispatch, and the many tools of a large manifest
 * that are called rarely, never wait for ajv's code generation. Both engines give the same
 * verdicts and messages (test/validation/messages.test.ts, conformance.test.ts, tiered.test.ts),
 * so the answer does not depend on which answered (the listed problems may come in another order). If ajv refuses a schema the eval-free engine accepted,
 * the eval-free validator stays in use.
 */
export function tieredValidator(interpreted: CompiledSchema, compileGenerated: () => CompiledSchema, tierUpAfter = TIER_UP_AFTER_CALLS): CompiledSchema {
  let current = interpreted;
  let calls = 0;
  return (data) => {
    if (current === interpreted && ++calls > tierUpAfter) {
      try {
        current = compileGenerated();
      } catch {
        calls = -Infinity; // ajv refused what the eval-free engine accepted: keep the one that works
      }
    }
    return current(data);
  };
}
