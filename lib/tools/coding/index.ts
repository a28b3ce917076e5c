/** The built-in coding tools, each a factory over an ExecutionEnvironment. */
export { applyPatchTool } from './apply-patch.ts';
export { editFileTool } from './edit-file.ts';
export { globTool } from './glob.ts';
export { grepTool } from './grep.ts';
export { CODING_OUTPUT_LIMITS, outputLimitsFor } from './output-limits.ts';
export type { CodingToolName } from './output-limits.ts';
export { readFileTool } from './read-file.ts';
export { SHELL_DEFAULT_TIMEOUT_MS, SHELL_MAX_TIMEOUT_MS, SHELL_TIMEOUT_GRACE_MS, shellTool } from './shell.ts';
export { writeFileTool } from './write-file.ts';
