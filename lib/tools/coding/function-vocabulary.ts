import type { CodingVocabulary } from './vocabulary.ts';
import { plural } from './wording.ts';

/** The wording for a model holding the coding tools as function tools: their own names and parameters. */
export const FUNCTION_TOOLS_VOCABULARY: CodingVocabulary = {
  read: {
    readOn: (line) => `To read more, call read_file with offset=${line}.`,
    pastEnd: (path, offset, total) => `Offset ${offset} is past the end of ${path}, which has ${plural(total, 'line')}. Use an offset from 1 to ${total}.`,
    rangeOfDirectory: (path) => `${path} is a directory: offset and limit (a range of lines) only apply to files. Leave them out to list the directory.`,
    notFound: (path) => `File not found: ${path}. Check the path, or find the file with glob.`,
    textOnly: 'read_file only shows text files.',
    seeMoreEntries: 'View a sub-folder, or use glob, to see the rest.',
  },
  edit: {
    emptyOld: (path) =>
      `old_string is empty. Copy the exact text to replace from ${path}; to add text, include the neighbouring lines in both old_string and new_string. To create a file, use write_file.`,
    unchanged: 'old_string and new_string are identical, so there is nothing to change. Provide the new text in new_string.',
    fileNotFound: (path) => `File not found: ${path}. edit_file only changes existing files; use write_file to create one.`,
    noMatch: (path, searched) =>
      `old_string was not found in ${path}. It must match the file exactly, including whitespace, indentation and line breaks; ` +
      `read the file again with read_file and copy the text (without the line-number prefixes). Searched for:\n${searched}`,
    ambiguous: (path, count) =>
      `old_string occurs ${count} times in ${path}, but replace_all is false. ` +
      'Add more surrounding lines to old_string so that it matches exactly one place, or set replace_all to true to replace every occurrence.',
    textOnly: 'edit_file only changes text files.',
  },
  write: {
    isDirectory: (path) => `${path} is a directory; write_file needs the path of a file.`,
    insertIsDirectory: (path) => `${path} is a directory; write_file needs the path of a file.`,
    insertEmpty: 'content is empty, so there is nothing to insert. Give the lines to insert in content.',
    insertFileNotFound: (path) => `File not found: ${path}. insert_line inserts into an existing file; leave insert_line out to create the file.`,
    insertTextOnly: 'write_file only inserts lines into text files.',
  },
  shell: {
    timeoutAdvice: (_timeoutMs, maxTimeoutMs, limitedByGrant) =>
      limitedByGrant
        ? `A command that runs without a human's approval may take at most ${maxTimeoutMs} ms here, whatever timeout_ms asks (the tenant's policy sets this): split the work into shorter commands.`
        : `If it needs more time, run it again with a larger timeout_ms (up to ${maxTimeoutMs}).`,
  },
  patch: {
    failure: (error) => error.message,
  },
};
