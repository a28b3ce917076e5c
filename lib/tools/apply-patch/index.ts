/**
 * apply_patch: the V4A patch engine, compatible with OpenAI Codex. `applyPatch` returns Codex's
 * success summary and throws ApplyPatchError whose message is the text the model should see.
 */
export { applyPatch, applyOperations } from './apply.ts';
export type { PatchFileSystem } from './apply.ts';
export { ApplyPatchError, parsePatch } from './parser.ts';
export type {
  AddFileOperation,
  ApplyPatchErrorKind,
  ChunkLine,
  ChunkLineKind,
  DeleteFileOperation,
  ParsedPatch,
  PatchOperation,
  UpdateChunk,
  UpdateFileOperation,
} from './parser.ts';
export { seekSequence } from './seek-sequence.ts';
