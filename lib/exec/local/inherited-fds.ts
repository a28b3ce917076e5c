import type { ProcessSpec } from '../sandbox/command-sandbox.ts';

/**
 * A command gets stdin, stdout and stderr, and no other file descriptor of the exec-server.
 *
 * Why: Node marks only its own descriptors close-on-exec. One the server inherited (started as
 * `toolgate exec-server ... 20<secret 21>>host.log`, or a supervisor's pipe) stays open in every
 * process it starts, and bwrap passes it on into the sandbox: `cat <&20` would read a host file
 * and `echo >&21` write one, even in a read_only call.
 *
 * How: the command's first process is this small bash, which closes every descriptor above 2
 * that it finds open, then execs the real program (the sandbox launcher, or the unsandboxed
 * shell) with its arguments. It runs with -p (privileged mode): it reads no BASH_ENV and imports
 * no functions from the environment, so nothing the caller put in the environment runs before
 * the descriptors are closed. Where it cannot list its descriptors it runs nothing (exit 125).
 * Descriptors the launcher opens after this (for bwrap, on purpose) are its own to pass.
 */
const CLOSE_THEN_EXEC = [
  'if [ -d /proc/self/fd ]; then fds=/proc/self/fd; elif [ -d /dev/fd ]; then fds=/dev/fd',
  'else echo "toolgate: cannot list open file descriptors (no /proc/self/fd or /dev/fd), so nothing was run" >&2; exit 125; fi',
  // The list is read before the loop: the folder's own descriptor is already closed again.
  'for entry in "$fds"/*; do',
  '  fd=${entry##*/}',
  '  case $fd in 0|1|2|*[!0-9]*) ;; *) { exec {fd}>&-; } 2>/dev/null ;; esac',
  'done',
  'unset fds entry fd',
  'exec "$@"',
].join('\n');

/** The same process, started through the closer: `spec.file` runs with only descriptors 0, 1 and 2. */
export function withoutInheritedFds(spec: ProcessSpec): ProcessSpec {
  return { ...spec, file: '/bin/bash', args: ['-p', '-c', CLOSE_THEN_EXEC, 'toolgate-close-fds', spec.file, ...spec.args] };
}
