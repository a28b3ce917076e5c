import { ExecEnvironmentError } from '../environment.ts';

/** Turns a Node fs error into an ExecEnvironmentError that names the caller's path and a next step. */
export function fsError(error: unknown, path: string): ExecEnvironmentError {
  if (error instanceof ExecEnvironmentError) return error;
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const shown = JSON.stringify(path);
  switch (code) {
    case 'ENOENT':
      return new ExecEnvironmentError('not_found', `${shown} does not exist: check the path (listDirectory shows what is there)`);
    case 'EISDIR':
      return new ExecEnvironmentError('is_directory', `${shown} is a folder, not a file: name a file inside it`);
    case 'ENOTDIR':
      return new ExecEnvironmentError('not_directory', `a part of ${shown} is a file where a folder was expected: check the path`);
    case 'EEXIST':
      return new ExecEnvironmentError('not_directory', `a parent of ${shown} exists as a file, so the folder cannot be created: choose another path`);
    case 'ENOTEMPTY':
      return new ExecEnvironmentError('is_directory', `${shown} is a folder that is not empty: choose another destination`);
    case 'ELOOP':
      return new ExecEnvironmentError('invalid_path', `${shown} goes through a loop of symbolic links: use a path without the loop`);
    case 'ENAMETOOLONG':
      return new ExecEnvironmentError('invalid_path', `${shown} is too long for the file system: use a shorter path`);
    case 'EACCES':
    case 'EPERM':
      return new ExecEnvironmentError('io_error', `permission denied for ${shown}: the exec-server's user may not access it`);
    default:
      return new ExecEnvironmentError('io_error', `${shown}: ${(error as Error | undefined)?.message ?? String(error)}`);
  }
}

/** True for the errors that mean "nothing is at this path". */
export function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}
