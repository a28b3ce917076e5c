import { describe, expect, it } from 'vitest';
import { commandsThatRun, DIFFERENTIAL_LINES as LINES, DIFFERENTIAL_SEED as SEED, runDifferential } from './bash-differential.ts';

/**
 * Issue 22: thousands of seeded random command lines (bash-differential.ts); for every one the
 * classifier accepts, bash must run exactly the simple commands it judged, word for word. A
 * failure names the line: `runDifferential({ seed, count })` replays it.
 */
describe('read_only_commands against bash', () => {
  it('predicts which commands run on either side of && and ||', () => {
    const commands = [['a'], ['b'], ['c'], ['d'], ['e']];
    expect(commandsThatRun(commands, ['&&', '|', '||', ';'], 0)).toEqual([['a'], ['b'], ['c'], ['e']]);
    expect(commandsThatRun(commands, ['&&', '|', '||', ';'], 1)).toEqual([['a'], ['d'], ['e']]);
  });

  it(`bash runs exactly the simple commands the classifier accepted, in ${LINES} random lines (seed ${SEED})`, () => {
    // About 8 s on an idle machine; the bound only stops a runaway, so it leaves room for a loaded one.
    const report = runDifferential({ seed: SEED, count: LINES, timeoutSeconds: 150 });
    expect(report.bashErrors).toBe('');
    expect(report.mismatches).toEqual([]);
    expect(report.accepted).toBeGreaterThan(LINES / 5);
    expect(report.compared).toBeGreaterThan(report.accepted);
  }, 200_000);
});
