import type { ApplyPatchError } from '../apply-patch/index.ts';
import { FUNCTION_TOOLS_VOCABULARY } from './function-vocabulary.ts';
import type { CodingVocabulary } from './vocabulary.ts';

/** The Responses API's native tools, whose items run as apply_patch and shell (lib/dispatch/formats/responses.ts). */
export const RESPONSES_NATIVE_TOOLS: readonly string[] = ['apply_patch', 'shell'];

/**
 * The patch an apply_patch_call becomes holds its one operation (lib/dispatch/formats/responses-patch.ts):
 * line 1 "*** Begin Patch", line 2 the operation's header, then the operation's diff, then "*** End Patch".
 */
const HEADER_LINE = 2;
const OPERATIONS: ReadonlyArray<{ header: string; type: string }> = [
  { header: '*** Add File: ', type: 'create_file' },
  { header: '*** Update File: ', type: 'update_file' },
  { header: '*** Delete File: ', type: 'delete_file' },
];

/**
 * A failed apply_patch_call, told in the terms of its operation ({type, path, diff}): the model
 * never saw the patch it became, so a line is a line of its diff, and a create_file diff's line
 * without "+" is not called a bad hunk header (the patch markers the model would be sent to are
 * refused in a diff).
 */
function operationFailure(error: ApplyPatchError, patch: string): string {
  const lines = patch.split('\n');
  const header = lines[HEADER_LINE - 1] ?? '';
  const operation = OPERATIONS.find((o) => header.startsWith(o.header));
  if (error.lineNumber === undefined || error.reason === undefined || operation === undefined) return error.message;
  const path = header.slice(operation.header.length);
  const diffLines = lines.length - HEADER_LINE - 1;
  const line = error.lineNumber - HEADER_LINE;
  if (operation.type === 'create_file') {
    return (
      `Line ${line} of the create_file diff for ${path} does not start with "+": ${JSON.stringify(lines[error.lineNumber - 1] ?? '')}. ` +
      'Every line of a create_file diff is a line of the new file, written after a "+".'
    );
  }
  if (line < 1) return `The ${operation.type} diff for ${path} is empty: give at least one hunk of lines starting with " ", "-" or "+".`;
  if (line > diffLines) return `At the end of the ${operation.type} diff for ${path}: ${error.reason}.`;
  return `Line ${line} of the ${operation.type} diff for ${path}: ${error.reason}.`;
}

/**
 * The wording for a model holding the Responses API's native apply_patch (operation {type, path,
 * diff}) and shell (commands, timeout_ms, max_output_length) beside the other coding tools as
 * function tools: only a patch's failure reads differently.
 */
export const RESPONSES_NATIVE_VOCABULARY: CodingVocabulary = {
  ...FUNCTION_TOOLS_VOCABULARY,
  patch: { failure: operationFailure },
};
