import { describe, expect, it } from 'vitest';
import { CODING_PROFILES, codingToolsFor, type CodingProfile } from '../../../lib/tools/profiles.ts';
import { MemoryEnvironment } from '../../helpers/memory-environment.ts';
import { run } from './run-tool.ts';

const names = (profile: CodingProfile) => codingToolsFor(profile, new MemoryEnvironment()).map((tool) => tool.name);

describe('codingToolsFor', () => {
  it('gives OpenAI apply_patch and no edit_file', () => {
    expect(names('openai')).toEqual(['read_file', 'write_file', 'apply_patch', 'shell', 'grep', 'glob']);
  });

  it('gives Anthropic and Gemini edit_file and no apply_patch', () => {
    expect(names('anthropic')).toEqual(['read_file', 'write_file', 'edit_file', 'shell', 'grep', 'glob']);
    expect(names('gemini')).toEqual(['read_file', 'write_file', 'edit_file', 'shell', 'grep', 'glob']);
  });

  it('lists the three profiles', () => {
    expect(CODING_PROFILES).toEqual(['openai', 'anthropic', 'gemini']);
  });

  it('refuses an unknown profile from an untyped caller', () => {
    expect(() => codingToolsFor('mistral' as CodingProfile, new MemoryEnvironment())).toThrow(
      'Unknown coding profile "mistral" (expected one of openai, anthropic, gemini)',
    );
  });

  it('binds every tool to the given environment', async () => {
    const env = new MemoryEnvironment();
    const tools = new Map(codingToolsFor('anthropic', env).map((tool) => [tool.name, tool]));
    const write = tools.get('write_file');
    const read = tools.get('read_file');
    if (!write || !read) throw new Error('missing tools');
    await run(write, { file_path: 'x.txt', content: 'hi\n' });
    expect(await run(read, { file_path: 'x.txt' })).toBe('   1 | hi');
  });
});
