/**
 * toolgate's apply_patch against Codex's own (the binary of the @openai/codex dev dependency),
 * on a fixed-seed sample of generated cases: well-formed patches, typical model mistakes and the
 * corners of issue 11 (see scripts/apply-patch-cases.ts). Every case must agree (success or
 * failure, the summary, every file byte for byte) except toolgate's deliberate safety refusals.
 * `npm run apply-patch-diff` runs more cases and prints the figures.
 */
import { describe, expect, it } from 'vitest';
import { generateCases } from '../../../scripts/apply-patch-cases.ts';
import { compareCases, describe as describeComparison, findCodexBinary, tally } from '../../../scripts/apply-patch-differential-lib.ts';

const SEED = 11;
const CASES = 600;

describe("apply_patch, differential against Codex's binary", () => {
  it('finds the Codex binary (npm install brings it with @openai/codex)', () => {
    expect(findCodexBinary()).toMatch(/codex$/);
  });

  it(`agrees with Codex on ${CASES} generated cases (seed ${SEED}) but for deliberate refusals`, { timeout: 240_000 }, async () => {
    const comparisons = await compareCases(findCodexBinary(), generateCases(SEED, CASES), 4);
    const result = tally(comparisons);
    const disagreements = comparisons.filter((c) => c.verdict === 'disagree').map(describeComparison);
    expect(disagreements).toEqual([]);
    // Only the two deliberate differences, and the sample reaches both outcomes and both refusals.
    expect(Object.keys(result.deliberate).sort()).toEqual(['move_onto_itself', 'outside_root']);
    expect(result.agree + result.deliberate.move_onto_itself + result.deliberate.outside_root).toBe(CASES);
    expect(result.codexSucceeded).toBeGreaterThan(CASES / 4);
    expect(result.codexFailed).toBeGreaterThan(CASES / 4);
  });
});
