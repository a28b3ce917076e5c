import { DEFAULT_COMMAND_LIMITS } from '../exec/sandbox/command-limits.ts';

const MIB = 1024 * 1024;

/** Operators of `toolgate exec-server` read these in its --help; the parser takes them from here. */
export interface ExecOption {
  flags: string;
  description: string;
  /** May be given several times. */
  repeatable?: boolean;
}

/** `toolgate exec-server`'s options; the file operations' default is lib/exec/server/exec-server.ts DEFAULT_FILE_OPERATIONS_AT_ONCE (a test compares). */
export const EXEC_OPTIONS: ExecOption[] = [
  { flags: '--root <dir>', description: 'the folder to serve (required)' },
  { flags: '--tenant <name>', description: 'a tenant this server works for (repeatable; or TOOLGATE_EXEC_TENANTS=a,b)', repeatable: true },
  { flags: '--port <n>', description: 'the port (default 8788; 0 picks a free one)' },
  { flags: '--host <host>', description: 'the address to listen on (default 127.0.0.1)' },
  { flags: '--allowed-host <name>', description: "another Host name (or name:port) requests may use, e.g. the name in the gateway's URL; by default only the address it listens on (and its loopback names)", repeatable: true },
  { flags: '--allow-network', description: 'commands may use the network when the manifest asks ("network": true)' },
  { flags: '--read-only-path <dir>', description: 'another host folder commands may read (a toolchain under /opt, say); repeatable', repeatable: true },
  { flags: '--limit-cpu <seconds>', description: `CPU seconds per process (default ${DEFAULT_COMMAND_LIMITS.cpu_seconds})` },
  { flags: '--limit-memory <mib>', description: `MiB for the whole call (default ${DEFAULT_COMMAND_LIMITS.memory_bytes / MIB})` },
  { flags: '--limit-processes <n>', description: `processes at once per call (default ${DEFAULT_COMMAND_LIMITS.processes})` },
  { flags: '--limit-file-size <mib>', description: `MiB per written file (default ${DEFAULT_COMMAND_LIMITS.file_size_bytes / MIB})` },
  { flags: '--limit-tmp <mib>', description: `MiB of the call's fresh /tmp (default ${DEFAULT_COMMAND_LIMITS.tmp_bytes / MIB})` },
  { flags: '--max-commands <n>', description: "commands running at once; more are refused, nothing run (default: as many as half this host's memory holds at --limit-memory, 1 to 8)" },
  { flags: '--limit-memory-total <mib>', description: 'MiB for all commands together (default --max-commands x --limit-memory)' },
  { flags: '--unsandboxed', description: 'without a working bubblewrap, run commands as ordinary processes of this user (with its files and network)' },
  { flags: '--max-body-bytes <n>', description: 'caps one request (default 64 MiB; file contents travel base64, about 4/3 larger)' },
  { flags: '--max-body-bytes-at-once <n>', description: 'caps the request bodies held at once (default 2 x --max-body-bytes); more: 503' },
  { flags: '--max-file-operations <n>', description: 'file operations worked on at once (default 4); more wait up to 10 s' },
  { flags: '--allow-hard-links', description: 'the file tools read, search and write (in place) files with more than one hard link; by default they refuse them, since another name of the file may lie outside the root' },
  { flags: '--stop-on-stdin-close', description: 'stop when standard input closes (for a parent process that started it)' },
];
