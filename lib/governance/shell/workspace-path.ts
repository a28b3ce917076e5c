/**
 * Read-only commands read inside the working directory only: a path that starts at `/` or climbs
 * with `..` could read the host (`git diff /etc/passwd /dev/null` compares any two files even
 * without `--no-index`). `~` never reaches here: the lexical guard refuses tilde expansion.
 * Symbolic links inside the workspace are the sandbox's to confine, not the classifier's.
 */
export function pathRefusal(path: string): string | undefined {
  if (path.startsWith('/')) return `"${path}" is an absolute path (read-only commands stay inside the working directory)`;
  if (path.split('/').includes('..')) return `"${path}" climbs out with ".." (read-only commands stay inside the working directory)`;
  return undefined;
}

/** The first of these paths that leaves the working directory, and why. */
export function pathsRefusal(paths: readonly string[]): string | undefined {
  for (const path of paths) {
    const refusal = pathRefusal(path);
    if (refusal) return refusal;
  }
  return undefined;
}
