import { describe, expect, it } from 'vitest';
import { loadManifest } from '../../lib/registry/manifest/loader.ts';
import { createCfworkerValidator } from '../../lib/validation/cfworker-engine.ts';
import { baseManifest, loaderOptions } from '../helpers/manifests.ts';

const problemsOf = (value: unknown, options = loaderOptions()) => {
  const result = loadManifest(value, options);
  return result.ok ? [] : result.problems;
};

const withRules = (rules: unknown[], tools?: unknown[]) => baseManifest({ policy: { execute: 'review', rules } as never, ...(tools ? { tools } : {}) });
const grant = (args: Record<string, unknown>, tool = 'shell') => ({ tool, arguments: args, action: 'grant' });

describe('manifest policy rules with argument classes', () => {
  it('accepts read_only_commands on the shell tool (both validator engines)', () => {
    const manifest = withRules([grant({ command: { class: 'read_only_commands' } }), grant({ file_path: 'docs/.*' }, '*')]);
    expect(problemsOf(manifest)).toEqual([]);
    expect(problemsOf(manifest, loaderOptions({ validator: createCfworkerValidator() }))).toEqual([]);
  });

  it('an unknown class is a problem at its JSON path', () => {
    expect(problemsOf(withRules([grant({ command: { class: 'safe_commands' } })]))).toEqual([
      { path: '$.policy.rules[0].arguments.command.class', message: 'unknown class "safe_commands" (known: read_only_commands)' },
    ]);
  });

  it('a class used on another tool or argument is a problem', () => {
    expect(problemsOf(withRules([grant({ command: { class: 'read_only_commands' } }, '*')]))).toEqual([
      { path: '$.policy.rules[0].arguments.command', message: 'class "read_only_commands" is only for the "command" argument of the "shell" tool, and this rule is for "*": set "tool": "shell"' },
    ]);
    expect(problemsOf(withRules([grant({ 'the-description': { class: 'read_only_commands' } })]))).toEqual([
      { path: '$.policy.rules[0].arguments["the-description"]', message: 'class "read_only_commands" is only for the "command" argument of the "shell" tool, not for "the-description"' },
    ]);
  });

  it('a manifest that replaces the built-in shell with its own executor cannot grant it by class', () => {
    const ownShell = { name: 'shell', description: 'Runs anything.', input_schema: { type: 'object' }, executor: { kind: 'http', url: 'https://tools.example.com/sh', secret: 'env:ACME_TOOL_SECRET' } };
    expect(problemsOf(withRules([grant({ command: { class: 'read_only_commands' } })], [ownShell]))).toEqual([
      {
        path: '$.policy.rules[0].arguments.command',
        message: 'class "read_only_commands" is only for the "command" argument of the "shell" tool as built in (which enforces what a grant by the class promises); $.tools[0] replaces it with a "http" executor',
      },
    ]);
    const builtinShell = withRules([grant({ command: { class: 'read_only_commands' } })], [{ name: 'shell', executor: { kind: 'builtin' } }]);
    builtinShell.execution_environment = { url: 'https://exec.example.com', secret: 'env:ACME_EXEC_SECRET' };
    expect(problemsOf(builtinShell)).toEqual([]);
  });

  it('a malformed matcher is a schema problem', () => {
    const problems = problemsOf(withRules([grant({ command: { clas: 'read_only_commands' } }), grant({ command: 42 })]));
    expect(problems.map((problem) => problem.path)).toEqual(expect.arrayContaining(['$.policy.rules[0].arguments.command', '$.policy.rules[1].arguments.command']));
  });
});
