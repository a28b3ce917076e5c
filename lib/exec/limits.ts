/**
 * Limits shared by both sides of the exec RPC. The client needs the command timeouts to size
 * its own transport timeout, so they live here (Web Standard code) and not in the Node-only
 * local environment.
 */

/** How long a command may run when the caller names no timeout. */
export const DEFAULT_EXEC_TIMEOUT_MS = 60_000;
/** The longest timeout a caller may ask for. */
export const MAX_EXEC_TIMEOUT_MS = 600_000;
/** After SIGTERM to a timed-out command's process group, how long before SIGKILL. */
export const KILL_GRACE_MS = 2_000;
/** stdout and stderr are each kept up to this many bytes (the head); the rest is dropped. */
export const DEFAULT_MAX_OUTPUT_BYTES = 1024 * 1024;
/**
 * readFile refuses larger files (invalid_request). The whole file travels in one answer, base64
 * (4/3 larger), and is held in memory on both sides; 32 MiB leaves room for every source file
 * and for apply_patch on a 10 MB one, while a 300 MB git pack found by glob is refused unread.
 */
export const MAX_READ_FILE_BYTES = 32 * 1024 * 1024;
/** grep answers at most this many matches when the caller names no limit. */
export const DEFAULT_GREP_MAX_RESULTS = 1_000;
/** A grep match's text is cut to this many characters (minified files have huge lines). */
export const MAX_GREP_LINE_CHARS = 2_000;
/** grep skips files larger than this; they are almost never source code. */
export const MAX_GREP_FILE_BYTES = 10 * 1024 * 1024;
/** A grep (ripgrep) still running after this long is killed and the call answers an error. */
export const DEFAULT_GREP_TIMEOUT_MS = 20_000;
/** glob stops matching paths after this long and answers an error (the RPC client waits 30 s). */
export const GLOB_MATCH_TIMEOUT_MS = 10_000;
/**
 * listDirectory stops after this many entries: a folder tree of 200,000 files took the local
 * environment 9 s of lstat calls and a 1.7 MB answer, for a listing the model sees 50,000
 * characters of. The last entry may be followed by nothing else; a caller seeing this many knows
 * the listing was cut.
 */
export const MAX_LISTED_ENTRIES = 5_000;
