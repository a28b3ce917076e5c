import type { ExecutionEnvironment } from '../../exec/environment.ts';
import { environmentForCall } from '../../exec/client/remote.ts';
import { ToolError } from '../../registry/errors.ts';
import { FnToolExecutor, type ToolExecutor } from '../../registry/executor.ts';
import type { JsonObject } from '../../registry/json.ts';
import { ApplyPatchError, applyPatch } from '../apply-patch/index.ts';
import { requiredString } from './arguments.ts';
import { environmentErrorCode, toToolError } from './environment-errors.ts';
import { outputLimitsFor } from './output-limits.ts';
import { vocabularyFor, type PatchWording } from './vocabulary.ts';

const INPUT_SCHEMA = {
  type: 'object',
  properties: {
    patch: {
      type: 'string',
      minLength: 1,
      description: 'The whole patch, from "*** Begin Patch" to "*** End Patch".',
    },
  },
  required: ['patch'],
  additionalProperties: false,
} as const;

const DESCRIPTION = [
  'Create, delete, move and edit files with one patch in the V4A format (the format of Codex\'s apply_patch).',
  'The patch starts with "*** Begin Patch" and ends with "*** End Patch". Between them, each file operation is one of:',
  '"*** Add File: <path>" followed by the new file\'s lines, each starting with "+";',
  '"*** Delete File: <path>";',
  '"*** Update File: <path>", optionally followed by "*** Move to: <new path>", then one or more hunks.',
  'A hunk starts with "@@" (optionally followed by a line that locates it, such as a class or function header);',
  'its lines start with " " (context, unchanged), "-" (removed) or "+" (added). Give about 3 lines of context around each change.',
  'Paths are relative to the working directory. Operations are applied in order; on failure, earlier ones stay applied.',
].join(' ');

/** The environment failure behind an ApplyPatchError, if its cause says the environment is down. */
function unavailableCause(error: ApplyPatchError): unknown {
  const cause = error.cause;
  if (cause instanceof ToolError && cause.code === 'unavailable') return cause;
  return environmentErrorCode(cause) === 'unavailable' ? cause : undefined;
}

async function runPatch(env: ExecutionEnvironment, args: JsonObject, words: PatchWording): Promise<string> {
  const patch = requiredString(args, 'patch');
  try {
    return await applyPatch(patch, env);
  } catch (error) {
    if (!(error instanceof ApplyPatchError)) throw toToolError(error, '(patch)');
    // An unreachable environment is not the patch's fault: keep `unavailable` so the call fails closed.
    const down = unavailableCause(error);
    if (down !== undefined) throw toToolError(down, '(patch)');
    throw new ToolError('error', words.failure(error, patch), { patch_error: error.kind });
  }
}

/** apply_patch: Codex's patch tool over the environment (the OpenAI profile's editing tool). */
export function applyPatchTool(env: ExecutionEnvironment): ToolExecutor {
  return new FnToolExecutor(
    {
      name: 'apply_patch',
      description: DESCRIPTION,
      input_schema: INPUT_SCHEMA,
      tier: 'write',
      tags: ['coding'],
      output: outputLimitsFor('apply_patch'),
    },
    (args, context) => runPatch(environmentForCall(env, context), args, vocabularyFor(context).patch),
  );
}
