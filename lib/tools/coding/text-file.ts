import type { ExecutionEnvironment } from '../../exec/environment.ts';
import { ToolError } from '../../registry/errors.ts';
import { inEnvironment, type EnvironmentErrorMessages } from './environment-errors.ts';

/** How far into a file a NUL byte marks it as binary (git and grep look at a similar prefix). */
const BINARY_SNIFF_BYTES = 8192;

/**
 * The file's text, or null when it is binary: a NUL byte near the start, or bytes that are not
 * UTF-8. A BOM is kept as text, so decoding and re-encoding gives back the same bytes.
 */
export function decodeText(bytes: Uint8Array): string | null {
  if (bytes.subarray(0, BINARY_SNIFF_BYTES).includes(0)) return null;
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return null;
  }
}

/** What a text file's reader says of a binary file: what it could not do, and (`textOnly`) which tool only handles text. */
export interface TextFileMessages extends EnvironmentErrorMessages {
  textOnly: string;
}

function binaryFileMessage(path: string, action: 'read' | 'edit', textOnly: string): string {
  return `Cannot ${action} ${path}: it is a binary file (it contains NUL bytes or is not valid UTF-8). ${textOnly}`;
}

/** Reads a text file through the environment; missing, directory and binary files become ToolErrors. */
export async function readTextFile(
  env: Pick<ExecutionEnvironment, 'readFile'>,
  path: string,
  action: 'read' | 'edit',
  { textOnly, ...messages }: TextFileMessages,
): Promise<string> {
  const bytes = await inEnvironment(path, () => env.readFile(path), messages);
  const text = decodeText(bytes);
  if (text === null) throw new ToolError('error', binaryFileMessage(path, action, textOnly));
  return text;
}
