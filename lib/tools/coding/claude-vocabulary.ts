import { BASH_NAME, TEXT_EDITOR_NAME } from '../../registry/formats/anthropic-native.ts';
import { FUNCTION_TOOLS_VOCABULARY } from './function-vocabulary.ts';
import type { CodingVocabulary } from './vocabulary.ts';
import { plural } from './wording.ts';

/** Claude's native client tools, whose calls run as the coding tools (lib/dispatch/formats/anthropic-native.ts). */
export const CLAUDE_NATIVE_TOOLS: readonly string[] = [TEXT_EDITOR_NAME, BASH_NAME];

/** A call of the text editor with this command, as a next step. */
const editorCall = (command: string, rest = '') => `call ${TEXT_EDITOR_NAME} with command "${command}"${rest}`;

/**
 * The wording for Claude holding its text editor (`str_replace_based_edit_tool`: commands view,
 * create, str_replace and insert; path, view_range, file_text, old_str, new_str, insert_line,
 * insert_text) and `bash` (command, restart). The text editor has no replace_all, no offset or
 * limit, and bash no timeout: no message asks for them.
 */
export const CLAUDE_NATIVE_VOCABULARY: CodingVocabulary = {
  read: {
    readOn: (line) => `To read more, ${editorCall('view', ` and view_range [${line}, -1]`)}.`,
    pastEnd: (path, offset, total) =>
      `view_range starts at line ${offset}, past the end of ${path}, which has ${plural(total, 'line')}. Start view_range at a line from 1 to ${total}.`,
    rangeOfDirectory: (path) => `${path} is a directory: view_range only applies to files. Leave view_range out to list the directory.`,
    notFound: (path) => `File not found: ${path}. Check the path, or ${editorCall('view')} on its folder to list the files there.`,
    textOnly: `${TEXT_EDITOR_NAME} only views text files.`,
    seeMoreEntries: `To see the rest, ${editorCall('view')} on a sub-folder.`,
  },
  edit: {
    emptyOld: (path) =>
      `old_str is empty. Copy the exact text to replace from ${path} into old_str. To add lines, ${editorCall('insert')}; to create a file, ${editorCall('create')}.`,
    unchanged: 'old_str and new_str are identical, so there is nothing to change. Provide the new text in new_str.',
    fileNotFound: (path) => `File not found: ${path}. The "str_replace" command only changes existing files; to create one, ${editorCall('create')}.`,
    noMatch: (path, searched) =>
      `old_str was not found in ${path}. It must match the file exactly, including whitespace, indentation and line breaks; ` +
      `${editorCall('view')} to read the file again, and copy the text (without the line-number prefixes). Searched for:\n${searched}`,
    ambiguous: (path, count) =>
      `old_str occurs ${count} times in ${path}, and "str_replace" replaces exactly one. ` +
      'Add more surrounding lines to old_str so that it matches exactly one place (to change every occurrence, replace them one at a time).',
    textOnly: `${TEXT_EDITOR_NAME} only changes text files.`,
  },
  write: {
    isDirectory: (path) => `${path} is a directory; the "create" command needs the path of a file.`,
    insertIsDirectory: (path) => `${path} is a directory; the "insert" command needs the path of a file.`,
    insertEmpty: 'insert_text is empty, so there is nothing to insert. Give the lines to insert in insert_text.',
    insertFileNotFound: (path) => `File not found: ${path}. The "insert" command inserts into an existing file; to create the file, ${editorCall('create')}.`,
    insertTextOnly: `${TEXT_EDITOR_NAME} only inserts lines into text files.`,
  },
  shell: {
    timeoutAdvice: (timeoutMs, maxTimeoutMs, cutByGrant) =>
      cutByGrant
        ? `A command that runs without a human's approval may take at most ${maxTimeoutMs} ms here (the tenant's policy sets this): split the work into shorter ${BASH_NAME} commands.`
        : `A ${BASH_NAME} command may run at most ${timeoutMs} ms here: split the work into shorter commands.`,
  },
  // Claude holds no patch tool; a patch reaches apply_patch only as a function call.
  patch: FUNCTION_TOOLS_VOCABULARY.patch,
};
