import { ClientCallOutput, clientCallInstruction, type ClientCall } from '../../registry/client-call.ts';
import { ContentOutput } from '../../registry/content-parts.ts';
import { contentText } from '../../registry/content-text.ts';
import { ToolError } from '../../registry/errors.ts';
import { checkContent, type CheckedContent } from '../content-check.ts';
import type { ToolExecutionContext, ToolExecutor, ToolOutput } from '../../registry/executor.ts';
import type { JsonObject } from '../../registry/json.ts';
import { genericNaming, type CallNaming } from '../call-naming.ts';
import { fail, pass, type StageResult } from './stage.ts';

class TimeoutSignal extends Error {}

/**
 * What a call produced: the full text for the model (with content parts, their text rendering),
 * the checked content parts when the tool answered them, and the call itself when the client is
 * to run it.
 */
export interface ExecutedOutput {
  text: string;
  content?: CheckedContent;
  client_call?: ClientCall;
  /** The tool reported an error with its own content (MCP's `isError`): an `error` result that keeps it. */
  is_error?: true;
  /** The tool's result `_meta` (reserved keys already removed). */
  meta?: JsonObject;
}

function executedOutput(output: ToolOutput | undefined): ExecutedOutput {
  if (output instanceof ClientCallOutput) return { text: clientCallInstruction(output.client_call.name), client_call: output.client_call };
  if (output instanceof ContentOutput) {
    const content = checkContent(output);
    return { text: contentText(content.parts, content.structured), content, ...(output.isError ? { is_error: true as const } : {}), ...(output.meta ? { meta: output.meta } : {}) };
  }
  if (output === undefined) return { text: '' };
  return { text: typeof output === 'string' ? output : JSON.stringify(output) };
}

/**
 * Runs the executor with an AbortSignal that fires after `timeoutMs`. The call ends at the
 * timeout even if the handler ignores the signal; a thrown ToolError keeps its code.
 */
export async function executeStage(
  executor: ToolExecutor,
  args: JsonObject,
  context: Omit<ToolExecutionContext, 'signal'>,
  timeoutMs: number,
  naming: CallNaming = genericNaming(executor.name),
): Promise<StageResult<ExecutedOutput>> {
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const reason = new TimeoutSignal(`timed out after ${timeoutMs} ms`);
      controller.abort(reason);
      reject(reason);
    }, timeoutMs);
  });
  try {
    const running = Promise.resolve(executor.execute(args, { ...context, signal: controller.signal }));
    // After a timeout nobody awaits the handler any more; its late failure must not go unhandled.
    running.catch(() => {});
    const output = await Promise.race([running, timedOut]);
    return pass(executedOutput(output));
  } catch (error) {
    if (error instanceof TimeoutSignal || (controller.signal.aborted && error === controller.signal.reason)) {
      return fail({
        code: 'timeout',
        message: `Tool ${naming.tool} timed out after ${timeoutMs} ms and was cancelled.`,
        details: { timeout_ms: timeoutMs },
      });
    }
    if (error instanceof ToolError) return fail({ code: error.code, message: error.message, details: error.details });
    const message = error instanceof Error ? error.message : String(error);
    return fail({
      code: 'error',
      message: `Tool ${naming.tool} failed: ${message}`,
      details: { error: error instanceof Error ? error.name : typeof error },
    });
  } finally {
    clearTimeout(timer);
  }
}
