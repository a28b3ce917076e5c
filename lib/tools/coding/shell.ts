import type { ExecOptions, ExecutionEnvironment } from '../../exec/environment.ts';
import { environmentForCall } from '../../exec/client/remote.ts';
import { ToolError } from '../../registry/errors.ts';
import { FnToolExecutor, type ToolExecutionContext, type ToolExecutor } from '../../registry/executor.ts';
import type { JsonObject } from '../../registry/json.ts';
import { optionalInteger, requiredString } from './arguments.ts';
import { inEnvironment } from './environment-errors.ts';
import { outputLimitsFor } from './output-limits.ts';
import { formatShellResult } from './shell-output.ts';
import { vocabularyFor } from './vocabulary.ts';

export const SHELL_DEFAULT_TIMEOUT_MS = 10_000;
export const SHELL_MAX_TIMEOUT_MS = 600_000;
/**
 * The gateway's own timeout for the call is the longest command plus this grace, so the pipeline
 * never cancels a command that is still within its own timeout_ms (the environment stops it,
 * then the partial output still has to travel back).
 */
export const SHELL_TIMEOUT_GRACE_MS = 10_000;

const INPUT_SCHEMA = {
  type: 'object',
  properties: {
    command: { type: 'string', minLength: 1, description: 'The shell command to run, in the working directory.' },
    timeout_ms: {
      type: 'integer',
      minimum: 1,
      maximum: SHELL_MAX_TIMEOUT_MS,
      default: SHELL_DEFAULT_TIMEOUT_MS,
      description: `How long the command may run, in milliseconds (default ${SHELL_DEFAULT_TIMEOUT_MS}, at most ${SHELL_MAX_TIMEOUT_MS}). Set it higher for builds, installs and test suites.`,
    },
    description: {
      type: 'string',
      description: 'A short description of what the command does and why, for the people who review or approve it.',
    },
  },
  required: ['command'],
  additionalProperties: false,
} as const;

/**
 * Outcomes, following Codex, Claude Code and the attractor spec's shell:
 * - a non-zero exit code is an ordinary result: the model reads it, like a failing test run;
 * - a timeout is also an ordinary (`ok`) result that ends with an "[ERROR: Command timed out ...]"
 *   note after the partial output. It is not thrown as an error because the partial output is
 *   what the model needs to decide what to do next, error results are not truncated (it could be
 *   huge) and the end event would lose the full output; and status `timeout` is kept for the
 *   gateway cancelling a call.
 * Only a failure of the environment itself (unreachable, rejected request) is an error result.
 */
async function runShell(env: ExecutionEnvironment, args: JsonObject, context: Pick<ToolExecutionContext, 'read_only' | 'signal' | 'max_timeout_ms' | 'native_tool'>): Promise<string> {
  const command = requiredString(args, 'command');
  // Said here in the model's terms; the environment would refuse it naming its own API.
  if (command.includes('\0')) throw new ToolError('error', 'The command contains a NUL byte, which no shell command can hold: remove it.');
  const requested = optionalInteger(args, 'timeout_ms', SHELL_DEFAULT_TIMEOUT_MS);
  // A call granted without a human runs at most the grant's limit, whatever the model asked for.
  const limit = Math.min(context.max_timeout_ms ?? SHELL_MAX_TIMEOUT_MS, SHELL_MAX_TIMEOUT_MS);
  const timeoutMs = Math.min(Math.max(1, requested), limit);
  // A grant by a read-only class (never a human's approval) asks the exec-server for a read-only
  // sandbox. The call's signal stops the command when the gateway stops waiting for it.
  const options: ExecOptions = { timeout_ms: timeoutMs, signal: context.signal, ...(context.read_only ? { read_only: true } : {}) };
  const result = await inEnvironment('(command)', () => env.execCommand(command, options));
  return formatShellResult(result, timeoutMs, limit, context.max_timeout_ms !== undefined, vocabularyFor(context).shell);
}

/** shell: runs one command through the environment and reports exit code, duration and output. */
export function shellTool(env: ExecutionEnvironment): ToolExecutor {
  return new FnToolExecutor(
    {
      name: 'shell',
      description:
        'Run a shell command in the working directory. Returns the exit code, the duration, stdout and stderr. ' +
        'A non-zero exit code is reported in the output, not as a tool failure. ' +
        `The command is stopped after timeout_ms (default ${SHELL_DEFAULT_TIMEOUT_MS} ms, at most ${SHELL_MAX_TIMEOUT_MS}; ` +
        'a command that runs without a human\'s approval may get less, as the policy says); ' +
        'then the partial output is returned with a timeout note.',
      input_schema: INPUT_SCHEMA,
      tier: 'execute',
      tags: ['coding'],
      timeout_ms: SHELL_MAX_TIMEOUT_MS + SHELL_TIMEOUT_GRACE_MS,
      output: outputLimitsFor('shell'),
    },
    (args, context) => runShell(environmentForCall(env, context), args, context),
  );
}
