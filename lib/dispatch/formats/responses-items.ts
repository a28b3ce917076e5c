import type { CommandOutcome } from '../call.ts';
import type { ResponsesContentItem } from './responses-content.ts';
/**
 * The Responses API input items toolgate answers with, field for field as the `openai` package
 * types them (ResponseInputItem.FunctionCallOutput, .ApplyPatchCallOutput, .ShellCallOutput);
 * test/types/openai-responses.ts makes tsc check that they stay assignable.
 */
export interface FunctionCallOutputItem {
  type: 'function_call_output';
  call_id: string;
  /** Text, or text, image and file items when the result has an image or a PDF. */
  output: string | ResponsesContentItem[];
}

export interface ApplyPatchCallOutputItem {
  type: 'apply_patch_call_output';
  call_id: string;
  status: 'completed' | 'failed';
  output: string;
}

/** One command's output in a shell_call_output. */
export interface ShellCommandOutput {
  stdout: string;
  stderr: string;
  outcome: CommandOutcome;
}

export interface ShellCallOutputItem {
  type: 'shell_call_output';
  call_id: string;
  output: ShellCommandOutput[];
  max_output_length: number | null;
}

export type ResponsesOutputItem = FunctionCallOutputItem | ApplyPatchCallOutputItem | ShellCallOutputItem;
