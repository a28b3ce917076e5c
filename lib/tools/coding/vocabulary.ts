import type { ToolExecutionContext } from '../../registry/executor.ts';
import type { ApplyPatchError } from '../apply-patch/index.ts';
import { CLAUDE_NATIVE_VOCABULARY, CLAUDE_NATIVE_TOOLS } from './claude-vocabulary.ts';
import { FUNCTION_TOOLS_VOCABULARY } from './function-vocabulary.ts';
import { RESPONSES_NATIVE_TOOLS, RESPONSES_NATIVE_VOCABULARY } from './responses-vocabulary.ts';

/**
 * The sentences of the coding tools' messages that name a tool or a parameter. Every next step a
 * message suggests must be a call the model can make with the tools it holds: a model holding the
 * function tools is told "call read_file with offset=4", Claude holding its native text editor is
 * told to view with view_range, and never about a parameter its tool lacks (replace_all). A call
 * made through a provider's native tool (ToolExecutionContext.native_tool) gets that tool's
 * vocabulary; every other call gets the function tools'.
 */
export interface CodingVocabulary {
  read: ReadWording;
  edit: EditWording;
  write: WriteWording;
  shell: ShellWording;
  patch: PatchWording;
}

/** read_file (the text editor's view). */
export interface ReadWording {
  /** How to read on from line `line`, ending the note under a window that stops before the end. */
  readOn(line: number): string;
  /** The window starts past the last line. */
  pastEnd(path: string, offset: number, total: number): string;
  /** A range of lines was asked of a directory. */
  rangeOfDirectory(path: string): string;
  notFound(path: string): string;
  /** Which tool only shows text, after "it is a binary file". */
  textOnly: string;
  /** How to see the entries of a listing cut at its limit. */
  seeMoreEntries: string;
}

/** edit_file (the text editor's str_replace). */
export interface EditWording {
  emptyOld(path: string): string;
  unchanged: string;
  fileNotFound(path: string): string;
  noMatch(path: string, searched: string): string;
  ambiguous(path: string, count: number): string;
  textOnly: string;
}

/** write_file: a whole file (the text editor's create), or lines inserted (its insert). */
export interface WriteWording {
  isDirectory(path: string): string;
  insertIsDirectory(path: string): string;
  insertEmpty: string;
  insertFileNotFound(path: string): string;
  insertTextOnly: string;
}

/** shell (bash). */
export interface ShellWording {
  /** What to do about a command stopped at its timeout, closing the note after its partial output. */
  timeoutAdvice(timeoutMs: number, maxTimeoutMs: number, limitedByGrant: boolean): string;
}

/** apply_patch (a Responses apply_patch_call's operation). */
export interface PatchWording {
  /** What the model reads for a patch that failed: `patch` is the text the tool was given. */
  failure(error: ApplyPatchError, patch: string): string;
}

/** The vocabulary of the tool the model called, as the execution context names it. */
export function vocabularyFor(context: Pick<ToolExecutionContext, 'native_tool'>): CodingVocabulary {
  const tool = context.native_tool;
  if (tool === undefined) return FUNCTION_TOOLS_VOCABULARY;
  if (CLAUDE_NATIVE_TOOLS.includes(tool)) return CLAUDE_NATIVE_VOCABULARY;
  if (RESPONSES_NATIVE_TOOLS.includes(tool)) return RESPONSES_NATIVE_VOCABULARY;
  return FUNCTION_TOOLS_VOCABULARY;
}
