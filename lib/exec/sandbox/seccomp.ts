import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setuidFilterFor } from './setuid-filter.ts';
import { removeFolder, removeStaleLeftovers } from './stale-leftovers.ts';

/**
 * The descriptor on which bwrap reads the seccomp filter (`--seccomp 3`). Whoever starts bwrap
 * opens the filter file on it: the launcher (`exec 3<FILE`) and the start-up trial. bwrap reads
 * it to the end and closes it before the command starts.
 */
export const SECCOMP_FILTER_FD = 3;

/** Named with the owner's pid, so a later server can remove the file of one that was killed. */
const FILTER_FOLDER_PREFIX = 'toolgate-sandbox-seccomp-';
const FILTER_FILE_NAME = 'setuid-filter.bpf';

/** The setuid filter as this server applies it: the file bwrap reads, and the line /healthz shows. */
export interface SeccompFilterFile {
  /** The compiled filter (remove its folder when done), or undefined on an architecture without one. */
  file?: string;
  /** For /healthz: whether commands can make setuid or setgid files, and why. */
  setuidFiles: string;
}

/**
 * Compiles the setuid filter (setuid-filter.ts) for this machine and writes it, once at start, to
 * a new private folder (mkdtemp: owner-only; nothing else on the host needs to read it).
 */
export function writeSeccompFilter(nodeArch: string = process.arch): SeccompFilterFile {
  const filter = setuidFilterFor(nodeArch);
  if (filter.architecture === undefined) return { setuidFiles: `allowed (${filter.reason})` };
  removeStaleLeftovers(tmpdir(), FILTER_FOLDER_PREFIX, removeFolder);
  const folder = mkdtempSync(join(tmpdir(), `${FILTER_FOLDER_PREFIX}${process.pid}-`));
  const file = join(folder, FILTER_FILE_NAME);
  writeFileSync(file, filter.program, { mode: 0o400 });
  return { file, setuidFiles: `refused (seccomp filter for ${filter.architecture})` };
}
