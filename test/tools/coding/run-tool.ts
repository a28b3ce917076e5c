/** Calling a tool executor directly, as the pipeline's execute stage would. */
import { ToolError } from '../../../lib/registry/errors.ts';
import type { ToolExecutionContext, ToolExecutor } from '../../../lib/registry/executor.ts';
import type { JsonObject } from '../../../lib/registry/json.ts';

export function testContext(): ToolExecutionContext {
  return {
    signal: new AbortController().signal,
    call_id: 'call_1',
    thread_id: 'thread_1',
    tenant: 'acme',
    principal: 'tester',
    env: {},
  };
}

/** The tool's output, which must be text. */
export async function run(tool: ToolExecutor, args: JsonObject): Promise<string> {
  const output = await tool.execute(args, testContext());
  if (typeof output !== 'string') throw new Error(`expected text output, got ${JSON.stringify(output)}`);
  return output;
}

/** The ToolError the tool throws (fails the test if it succeeds or throws something else). */
export async function runError(tool: ToolExecutor, args: JsonObject): Promise<ToolError> {
  try {
    await tool.execute(args, testContext());
  } catch (error) {
    if (error instanceof ToolError) return error;
    throw error;
  }
  throw new Error(`expected ${tool.name} to fail`);
}
