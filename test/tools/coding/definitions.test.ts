import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../lib/registry/json.ts';
import type { ToolExecutor } from '../../../lib/registry/executor.ts';
import { CODING_OUTPUT_LIMITS } from '../../../lib/tools/coding/output-limits.ts';
import { codingToolsFor } from '../../../lib/tools/profiles.ts';
import { createAjvValidator } from '../../../lib/validation/ajv-engine.ts';
import { createCfworkerValidator } from '../../../lib/validation/cfworker-engine.ts';
import { lintSchema } from '../../../lib/validation/schema-lint.ts';
import { MemoryEnvironment } from '../../helpers/memory-environment.ts';

/** Every coding tool once: OpenAI's list plus edit_file. */
function allTools(): Map<string, ToolExecutor> {
  const env = new MemoryEnvironment();
  return new Map([...codingToolsFor('openai', env), ...codingToolsFor('anthropic', env)].map((tool) => [tool.name, tool]));
}

function tool(name: string): ToolExecutor {
  const found = allTools().get(name);
  if (!found) throw new Error(`no tool ${name}`);
  return found;
}

const validator = createAjvValidator();

function violations(name: string, args: unknown): string[] {
  const outcome = validator.compile(tool(name).definition.input_schema)(args);
  return outcome.valid ? [] : outcome.violations.map((violation) => `${violation.keyword} ${violation.pointer}`);
}

describe('coding tool definitions', () => {
  it('have tiers, the coding tag, and closed object schemas with described properties', () => {
    const tiers = Object.fromEntries([...allTools()].map(([name, t]) => [name, t.definition.tier]));
    expect(tiers).toEqual({
      read_file: 'read',
      write_file: 'write',
      apply_patch: 'write',
      edit_file: 'write',
      shell: 'execute',
      grep: 'read',
      glob: 'read',
    });
    for (const [, { definition }] of allTools()) {
      expect(definition.tags).toContain('coding');
      expect(definition.description.length).toBeGreaterThan(40);
      const schema = definition.input_schema as JsonObject;
      expect(schema.type).toBe('object');
      expect(schema.additionalProperties).toBe(false);
      for (const property of Object.values(schema.properties as Record<string, JsonObject>)) {
        expect(typeof property.description).toBe('string');
      }
    }
  });

  it('carry the default output limits', () => {
    expect(Object.fromEntries([...allTools()].map(([name, t]) => [name, t.definition.output]))).toEqual({
      read_file: { max_chars: 50_000, mode: 'head_tail' },
      write_file: { max_chars: 1_000, mode: 'tail' },
      edit_file: { max_chars: 10_000, mode: 'tail' },
      apply_patch: { max_chars: 10_000, mode: 'tail' },
      shell: { max_chars: 30_000, max_lines: 256, mode: 'head_tail' },
      grep: { max_chars: 20_000, max_lines: 200, mode: 'tail' },
      glob: { max_chars: 20_000, max_lines: 500, mode: 'tail' },
    });
    expect(tool('grep').definition.output).not.toBe(CODING_OUTPUT_LIMITS.grep);
  });

  it('have schemas that pass the lint and that the Workers engine enforces too', () => {
    const cfworker = createCfworkerValidator();
    for (const [name, { definition }] of allTools()) {
      expect(lintSchema(definition.input_schema), name).toEqual([]);
      expect(cfworker.compile(definition.input_schema)({ unexpected: true }).valid, name).toBe(false);
    }
  });

  it('accept good arguments', () => {
    expect(violations('read_file', { file_path: 'a.ts', offset: 10, limit: 5 })).toEqual([]);
    expect(violations('write_file', { file_path: 'a.ts', content: '' })).toEqual([]);
    expect(violations('edit_file', { file_path: 'a.ts', old_string: 'a', new_string: 'b', replace_all: true })).toEqual([]);
    expect(violations('apply_patch', { patch: '*** Begin Patch\n*** End Patch' })).toEqual([]);
    expect(violations('shell', { command: 'ls', timeout_ms: 600_000, description: 'list' })).toEqual([]);
    expect(violations('grep', { pattern: 'x', path: 'src', glob_filter: '*.ts', case_insensitive: true, max_results: 5 })).toEqual([]);
    expect(violations('glob', { pattern: '**/*.ts', path: 'src' })).toEqual([]);
  });

  it('reject bad arguments', () => {
    expect(violations('read_file', {})).toEqual(['required /file_path']);
    expect(violations('read_file', { file_path: 'a', offset: 0 })).toEqual(['minimum /offset']);
    expect(violations('read_file', { file_path: 'a', limit: 1.5 })).toEqual(['type /limit']);
    expect(violations('read_file', { path: 'a' })).toEqual(['required /file_path', 'additionalProperties /path']);
    expect(violations('write_file', { file_path: 'a' })).toEqual(['required /content']);
    expect(violations('write_file', { file_path: '', content: 'x' })).toEqual(['minLength /file_path']);
    expect(violations('edit_file', { file_path: 'a', old_string: 'x', new_string: 'y', replace_all: 'yes' })).toEqual(['type /replace_all']);
    expect(violations('edit_file', { file_path: 'a', old_string: 'x' })).toEqual(['required /new_string']);
    expect(violations('apply_patch', { patch: 42 })).toEqual(['type /patch']);
    expect(violations('apply_patch', { patch: 'x', extra: true })).toEqual(['additionalProperties /extra']);
    expect(violations('shell', { command: 'ls', timeout_ms: 600_001 })).toEqual(['maximum /timeout_ms']);
    expect(violations('shell', { command: 'ls', timeout_ms: 0 })).toEqual(['minimum /timeout_ms']);
    expect(violations('shell', { cmd: 'ls' })).toEqual(['required /command', 'additionalProperties /cmd']);
    expect(violations('grep', { pattern: 'x', max_results: 0 })).toEqual(['minimum /max_results']);
    expect(violations('grep', { pattern: 'x', case_insensitive: 1 })).toEqual(['type /case_insensitive']);
    expect(violations('glob', { pattern: '' })).toEqual(['minLength /pattern']);
    expect(violations('glob', { pattern: '*', recursive: true })).toEqual(['additionalProperties /recursive']);
  });
});
