import { describe, expect, it } from 'vitest';
import { classifyCommand } from '../../../lib/governance/shell/classify-command.ts';
import { parseCommandLine } from '../../../lib/governance/shell/parse-command.ts';
import { READ_ONLY_PROGRAMS } from '../../../lib/governance/shell/read-only-programs.ts';
import { PROGRAM_FORMS } from './program-forms.ts';

/** Issue 22, findings 1 and 6 among them: each program's accepted and refused forms (program-forms.ts). */
describe('read_only_commands: the forms of each program', () => {
  it('every read-only program has a table, and every table a program', () => {
    expect(Object.keys(PROGRAM_FORMS).sort()).toEqual([...READ_ONLY_PROGRAMS.keys()].sort());
  });

  for (const [program, forms] of Object.entries(PROGRAM_FORMS)) {
    describe(program, () => {
      it.each(forms.accepted)('accepts %s', (command) => {
        const parsed = parseCommandLine(command);
        expect(parsed.ok && parsed.commands[0][0]).toBe(program);
        expect(classifyCommand(command)).toEqual({ read_only: true });
      });

      it.each(forms.refused)('refuses %s', (command, reason) => {
        const classified = classifyCommand(command);
        expect(classified.read_only).toBe(false);
        expect(classified).toMatchObject({ reason: expect.stringContaining(reason) });
      });
    });
  }
});
