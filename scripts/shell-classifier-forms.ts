/**
 * `node scripts/shell-classifier-forms.ts [--differential]`: the read_only_commands classifier's
 * figures. Per program, how many of the forms in test/governance/shell/program-forms.ts it
 * accepts and refuses (each classified now, not read from the table), and with --differential
 * the bash differential test's run (lines generated, accepted, simple commands compared,
 * mismatches) on the test's seed and size.
 */
import { parseArgs } from 'node:util';
import { classifyCommand } from '../lib/governance/shell/classify-command.ts';
import { DIFFERENTIAL_LINES, DIFFERENTIAL_SEED, runDifferential } from '../test/governance/shell/bash-differential.ts';
import { PROGRAM_FORMS } from '../test/governance/shell/program-forms.ts';

const { values } = parseArgs({ options: { differential: { type: 'boolean', default: false } } });

const rows = Object.entries(PROGRAM_FORMS).map(([program, forms]) => {
  const commands = [...forms.accepted, ...forms.refused.map(([command]) => command)];
  const accepted = commands.filter((command) => classifyCommand(command).read_only).length;
  return { program, accepted, refused: commands.length - accepted };
});
const total = rows.reduce((sum, row) => ({ accepted: sum.accepted + row.accepted, refused: sum.refused + row.refused }), { accepted: 0, refused: 0 });

console.log('| program | accepted | refused |\n| --- | ---: | ---: |');
for (const row of rows) console.log(`| ${row.program} | ${row.accepted} | ${row.refused} |`);
console.log(`| **all** | **${total.accepted}** | **${total.refused}** |`);

if (values.differential) {
  const started = performance.now();
  const { generated, accepted, compared, mismatches } = runDifferential({ seed: DIFFERENTIAL_SEED, count: DIFFERENTIAL_LINES });
  console.log(`\nbash differential (seed ${DIFFERENTIAL_SEED}): ${generated} lines generated, ${accepted} accepted, ${compared} simple commands compared, ${mismatches.length} mismatches, ${Math.round(performance.now() - started)} ms`);
}
