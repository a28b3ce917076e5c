import { ExecEnvironmentError, type ExecErrorCode } from '../../exec/environment.ts';
import { ToolError } from '../../registry/errors.ts';

/** Per-tool wording for some codes, for messages that say what to do next. */
export type EnvironmentErrorMessages = Partial<Record<ExecErrorCode, string>>;

const CODES: readonly ExecErrorCode[] = [
  'not_found',
  'is_directory',
  'not_directory',
  'invalid_path',
  'outside_root',
  'invalid_request',
  'io_error',
  'unavailable',
];

/**
 * The code of an ExecEnvironmentError. Also recognised by name and code, since an error rebuilt
 * by an RPC client from another copy of the module would fail `instanceof`.
 */
export function environmentErrorCode(error: unknown): ExecErrorCode | undefined {
  if (error instanceof ExecEnvironmentError) return error.code;
  if (!(error instanceof Error) || error.name !== 'ExecEnvironmentError') return undefined;
  const code = (error as Error & { code?: unknown }).code;
  return CODES.find((known) => known === code);
}

function defaultMessage(code: ExecErrorCode, path: string, detail: string): string {
  switch (code) {
    case 'not_found':
      return `No such file or directory: ${path}`;
    case 'is_directory':
      return `${path} is a directory, not a file.`;
    case 'not_directory':
      return `${path} is not a directory, or one of its parent folders is a file.`;
    case 'invalid_path':
      return `Invalid path ${path}: ${detail}`;
    case 'outside_root':
      return `Path ${path} is outside the working directory. Use a path relative to the working directory, or an absolute path inside it.`;
    case 'invalid_request':
      return `The execution environment rejected the request: ${detail}`;
    case 'io_error':
      return `I/O error on ${path}: ${detail}`;
    case 'unavailable':
      return `The execution environment is unavailable: ${detail}`;
  }
}

/**
 * What the model reads when the environment fails. `unavailable` keeps its code (the call never
 * reached the files, so the pipeline fails closed and releases the idempotency claim); the rest
 * become `error` results. A ToolError from the environment passes unchanged, and anything else
 * is rethrown as is (the pipeline reports it as an executor failure).
 */
export function toToolError(error: unknown, path: string, messages: EnvironmentErrorMessages = {}): unknown {
  if (error instanceof ToolError) return error;
  const code = environmentErrorCode(error);
  if (code === undefined) return error;
  const detail = (error as Error).message;
  if (code === 'unavailable') return new ToolError('unavailable', defaultMessage(code, path, detail));
  return new ToolError('error', messages[code] ?? defaultMessage(code, path, detail), { environment_error: code });
}

/** Runs one environment operation, translating its failure with `toToolError`. */
export async function inEnvironment<T>(
  path: string,
  operation: () => Promise<T>,
  messages: EnvironmentErrorMessages = {},
): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    throw toToolError(error, path, messages);
  }
}
