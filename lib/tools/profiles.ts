import type { ExecutionEnvironment } from '../exec/environment.ts';
import type { ToolExecutor } from '../registry/executor.ts';
import { applyPatchTool } from './coding/apply-patch.ts';
import { editFileTool } from './coding/edit-file.ts';
import { globTool } from './coding/glob.ts';
import { grepTool } from './coding/grep.ts';
import { readFileTool } from './coding/read-file.ts';
import { shellTool } from './coding/shell.ts';
import { writeFileTool } from './coding/write-file.ts';

export { CODING_OUTPUT_LIMITS } from './coding/output-limits.ts';

/** The model families whose native coding tools toolgate mirrors. */
export type CodingProfile = 'openai' | 'anthropic' | 'gemini';
export const CODING_PROFILES: readonly CodingProfile[] = ['openai', 'anthropic', 'gemini'];

/**
 * Each family edits files the way its own agent taught it: OpenAI models (Codex) with
 * apply_patch, Anthropic (Claude Code) and Gemini (gemini-cli) models with exact
 * old_string/new_string replacement. The other tools are shared.
 */
export function codingToolsFor(profile: CodingProfile, env: ExecutionEnvironment): ToolExecutor[] {
  const editing = editingToolFor(profile, env);
  return [readFileTool(env), writeFileTool(env), editing, shellTool(env), grepTool(env), globTool(env)];
}

function editingToolFor(profile: CodingProfile, env: ExecutionEnvironment): ToolExecutor {
  switch (profile) {
    case 'openai':
      return applyPatchTool(env);
    case 'anthropic':
    case 'gemini':
      return editFileTool(env);
    default:
      throw new Error(`Unknown coding profile "${String(profile)}" (expected one of ${CODING_PROFILES.join(', ')})`);
  }
}
