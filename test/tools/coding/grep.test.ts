import { describe, expect, it } from 'vitest';
import { ExecEnvironmentError, type ExecutionEnvironment } from '../../../lib/exec/environment.ts';
import { grepTool, patternMistake } from '../../../lib/tools/coding/grep.ts';
import { MemoryEnvironment } from '../../helpers/memory-environment.ts';
import { run, runError } from './run-tool.ts';

function project(): MemoryEnvironment {
  return new MemoryEnvironment({
    'src/a.ts': 'import x from "y";\nexport const TODO = 1;\n// todo: later\n',
    'src/b.py': '# TODO python\n',
    'docs/readme.md': 'TODO docs\r\n',
  });
}

describe('grep', () => {
  it('lists matches as path:line:text', async () => {
    expect(await run(grepTool(project()), { pattern: 'TODO' })).toBe(
      'docs/readme.md:1:TODO docs\nsrc/a.ts:2:export const TODO = 1;\nsrc/b.py:1:# TODO python',
    );
  });

  it('narrows by path and glob_filter, and ignores case on request', async () => {
    const env = project();
    expect(await run(grepTool(env), { pattern: 'todo', path: 'src', glob_filter: '*.ts', case_insensitive: true })).toBe(
      'src/a.ts:2:export const TODO = 1;\nsrc/a.ts:3:// todo: later',
    );
  });

  it('says so when nothing matches (not an error)', async () => {
    const env = project();
    expect(await run(grepTool(env), { pattern: 'FIXME' })).toBe('No matches found for pattern "FIXME" in the working directory.');
    expect(await run(grepTool(env), { pattern: 'FIXME', path: 'src', glob_filter: '*.ts' })).toBe(
      'No matches found for pattern "FIXME" in src (files matching *.ts).',
    );
  });

  it('stops at max_results and says that more exist', async () => {
    const env = new MemoryEnvironment({ 'many.txt': 'hit\n'.repeat(5) });
    expect(await run(grepTool(env), { pattern: 'hit', max_results: 2 })).toBe(
      'many.txt:1:hit\nmany.txt:2:hit\n\n[Showing the first 2 matches; there are more. Narrow the search with path or glob_filter, or raise max_results.]',
    );
    expect(await run(grepTool(env), { pattern: 'hit', max_results: 5 })).toBe(
      Array.from({ length: 5 }, (_, i) => `many.txt:${i + 1}:hit`).join('\n'),
    );
  });

  it('rejects an invalid regex with a clear error', async () => {
    const error = await runError(grepTool(project()), { pattern: 'foo(' });
    expect(error.code).toBe('error');
    expect(error.message).toBe(
      'Invalid regex pattern "foo(": Unterminated group. Escape characters such as ( ) [ ] { } . * + ? | \\ with a backslash to match them literally.',
    );
  });

  it('refuses unbalanced brackets itself, and leaves the rest of the syntax to the environment (ripgrep)', async () => {
    const mistakes: [string, string][] = [
      ['foo(', 'Unterminated group'],
      ['a)', "Unmatched ')'"],
      ['[a-z', 'Unterminated character class'],
      ['[[a]', 'Unterminated character class'],
      ['*.ts', 'Nothing to repeat'],
      ['a\\', '\\ at end of pattern'],
    ];
    for (const [pattern, mistake] of mistakes) expect(patternMistake(pattern), pattern).toBe(mistake);
    // Valid for ripgrep (Rust regex), though JavaScript refuses several: they must reach the environment.
    const rustSyntax = ['(?i)todo', '\\p{Lu}+', '[[:upper:]]+', '[]a]', '[^]a]', '[a-z&&[^aeiou]]', '(?P<word>\\w+)', 'a\\(b', '(a+)+$'];
    const searched: string[] = [];
    const environment = { grep: async (pattern: string) => (searched.push(pattern), []) } as unknown as ExecutionEnvironment;
    for (const pattern of rustSyntax) expect(await run(grepTool(environment), { pattern }), pattern).toContain('No matches found');
    expect(searched).toEqual(rustSyntax);
  });

  it('reports a missing path and keeps unavailable', async () => {
    const env = project();
    expect((await runError(grepTool(env), { pattern: 'x', path: 'lib' })).message).toBe('Path not found: lib');
    env.fail('grep', new ExecEnvironmentError('unavailable', 'down'));
    expect((await runError(grepTool(env), { pattern: 'x' })).code).toBe('unavailable');
  });
});
