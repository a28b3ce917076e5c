import { execFileSync } from 'node:child_process';
import { accessSync, constants, existsSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SANDBOX_PATH } from './command-env.ts';
import { removeFolder, removeStaleLeftovers } from './stale-leftovers.ts';

/**
 * git under a read-only grant runs no program a repository names. git reads programs from its
 * settings (core.fsmonitor, core.pager, diff and merge drivers, textconv, clean/smudge/process
 * filters, credential helpers, core.sshCommand, gpg.program, core.editor, askpass, ...) and the
 * settings from files a repository controls: its config, files that config includes, the gitdir a
 * `.git` file points to, a submodule's own config. Pinning known keys off in the environment
 * (GIT_CONFIG_COUNT) cannot cover the names a repository chooses (`diff.<driver>.textconv`,
 * `filter.<driver>.clean`), so the check is an allowlist:
 *
 * In a read-only call's sandbox, every path git is run by (the git on the sandbox's PATH, and
 * `git` in git's own exec path, which git runs for a submodule) is a script (GIT_GUARD_SCRIPT
 * below) that
 * 1. refuses options before the subcommand other than the four the read-only class allows
 *    (so no `-c`, `-C`, `--git-dir`, `--exec-path`, `-p`);
 * 2. builds git's environment from scratch: no GIT_* variable, PAGER, EDITOR or LD_* of the
 *    caller reaches it, and the system and global config are not read (the operator's
 *    /etc/gitconfig is for the operator's own git, and may name a credential helper);
 * 3. lists every setting that git would read there (`git config --list`, which follows the
 *    gitdir, includes and worktree config exactly as the command would) and refuses, naming the
 *    setting and its file, unless every key is in SAFE_SETTINGS: settings that name no program,
 *    include no file and start no transport;
 * 4. where `core.worktree` is set, asks git which work tree it makes of it and refuses unless
 *    that folder (symlinks resolved) lies inside the workspace, which the sandbox names at
 *    WORKSPACE_LINK: git reads the work tree's files (`git diff` prints them), and
 *    `core.worktree = /` would make it read the sandbox's /; git then runs with the folder
 *    checked as GIT_WORK_TREE;
 * 5. runs the real git (mounted at REAL_GIT) with that environment, hooks, fsmonitor, the pager,
 *    signatures, external diff, textconv and every transport pinned off besides.
 * A submodule's git is started by git through its exec path, so it is checked the same way, in the
 * submodule. Calls that are not read-only (a human approved them) run git unchanged.
 */

/** Where a read-only call's sandbox mounts the real git program, for the script to run. */
export const REAL_GIT = '/run/toolgate/git';

/**
 * A symlink to the call's workspace, made by bwrap in the read-only root (so no command can
 * change it), where the script finds the folder a work tree must lie in. The script is written
 * once for every workspace; the environment would not do (the command sets git's).
 */
export const WORKSPACE_LINK = '/run/toolgate/workspace';

/** Settings, as `section.variable` or `section.*.variable` (any subsection), that name no program, include no file and start no transport. */
const SAFE_SETTINGS = [
  // The repository's own shape and defaults (git init, git clone).
  'core.repositoryformatversion core.filemode core.bare core.logallrefupdates core.ignorecase core.precomposeunicode core.symlinks',
  'core.autocrlf core.eol core.safecrlf core.checkstat core.trustctime core.quotepath core.abbrev core.commentchar core.whitespace',
  'core.compression core.loosecompression core.bigfilethreshold core.untrackedcache core.preloadindex core.sparsecheckout',
  'core.sparsecheckoutcone core.splitindex core.multipackindex core.commitgraph core.warnambiguousrefs core.sharedrepository',
  'core.deltabasecachelimit core.packedgitlimit core.packedgitwindowsize core.fsync core.fsyncmethod core.checkroundtripencoding',
  'core.protecthfs core.protectntfs core.worktree extensions.objectformat extensions.worktreeconfig init.defaultbranch',
  'user.name user.email author.name author.email committer.name committer.email i18n.commitencoding i18n.logoutputencoding',
  'remote.*.url remote.*.pushurl remote.*.fetch remote.*.push remote.*.tagopt remote.*.mirror remote.*.prune remote.*.prunetags',
  'remote.*.skipdefaultupdate remote.*.skipfetchall branch.*.remote branch.*.pushremote branch.*.merge branch.*.rebase',
  'branch.*.description branch.autosetupmerge branch.autosetuprebase branch.sort tag.sort checkout.defaultremote worktree.guessremote',
  'submodule.*.url submodule.*.path submodule.*.active submodule.*.branch submodule.*.ignore submodule.*.fetchrecursesubmodules',
  'submodule.*.shallow submodule.active submodule.recurse',
  // How the read-only commands show things.
  'diff.renames diff.renamelimit diff.algorithm diff.mnemonicprefix diff.noprefix diff.context diff.interhunkcontext diff.colormoved',
  'diff.colormovedws diff.indentheuristic diff.statgraphwidth diff.submodule diff.ignoresubmodules diff.suppressblankempty',
  'diff.wserrorhighlight diff.dirstat diff.relative diff.autorefreshindex diff.*.binary diff.*.xfuncname diff.*.funcname diff.*.wordregex',
  'log.date log.decorate log.abbrevcommit log.follow log.showroot log.mailmap log.graphcolors status.short status.branch',
  'status.showstash status.showuntrackedfiles status.submodulesummary status.relativepaths status.aheadbehind status.renames',
  'status.renamelimit status.displaycommentprefix blame.date blame.showemail blame.blankboundary blame.showroot blame.coloring',
  'column.ui column.status column.branch index.version index.threads index.skiphash index.sparse feature.manyfiles feature.experimental',
  // What other commands do, read by none of the read-only ones.
  'pull.rebase pull.ff push.default push.autosetupremote push.followtags fetch.prune fetch.prunetags fetch.recursesubmodules',
  'fetch.writecommitgraph fetch.parallel merge.ff merge.conflictstyle merge.renames merge.renamelimit rebase.autosquash',
  'rebase.autostash rebase.updaterefs rerere.enabled rerere.autoupdate gc.auto gc.autopacklimit gc.autodetach gc.reflogexpire',
  'gc.reflogexpireunreachable gc.pruneexpire gc.writecommitgraph gc.*.reflogexpire gc.*.reflogexpireunreachable pack.threads',
  'pack.windowmemory pack.packsizelimit',
].flatMap((line) => line.split(' '));

/**
 * Sections whose every setting is safe: advice switches, colours. Not `pretty` (named log
 * formats): `pretty.sig = %G?` brings by name the %G placeholders the read-only class refuses on
 * the command line, and verifying a signature runs gpg.
 */
const SAFE_SECTIONS = ['advice', 'color'];

/**
 * Set on every run besides, as the command line's -c would. The allowlist already keeps them
 * unset; these hold too if a setting is written between the check and git's own read of it (a
 * write tool racing the command), as do --no-ext-diff and --no-textconv (EXTRA_OPTIONS). Drivers
 * the repository names cannot be pinned so: for a clean or smudge filter, and textconv in
 * `git status -v` (which has no --no-textconv), that race remains.
 */
const PINNED = {
  'core.fsmonitor': 'false',
  'core.hooksPath': '/dev/null',
  'core.pager': 'cat',
  'log.showSignature': 'false',
  'protocol.allow': 'never',
  'gpg.program': 'gpg',
  'gpg.openpgp.program': 'gpg',
  'gpg.x509.program': 'gpgsm',
  'gpg.ssh.program': 'ssh-keygen',
};

/** Options added after these subcommands: no external diff program, no textconv driver. */
const EXTRA_OPTIONS: Record<string, string> = {
  diff: '--no-ext-diff --no-textconv',
  log: '--no-ext-diff --no-textconv',
  show: '--no-ext-diff --no-textconv',
  blame: '--no-textconv',
};

/** The options the read-only class lets through before the subcommand (lib/governance/shell/git-rule.ts). */
const GLOBAL_OPTIONS = ['--no-pager', '-P', '--no-optional-locks', '--literal-pathspecs'];

/** What a read-only call's sandbox puts in place of git. */
export interface GitGuard {
  /** The script, written at start into a private folder (remove the folder when done). */
  script: string;
  /** The real git program on the host, mounted read-only at REAL_GIT. */
  realGit: string;
  /** Where git is run from in the sandbox (its PATH, git's exec path): each gets the script. */
  runFrom: string[];
}

/** Named with the owner's pid, so a later server can remove the folder of one that was killed. */
const GUARD_FOLDER_PREFIX = 'toolgate-sandbox-git-';

/** The guard for the git a sandboxed command would run, or undefined where the sandbox has no git. */
export function writeGitGuard(): GitGuard | undefined {
  const onPath = SANDBOX_PATH.split(':').map((folder) => join(folder, 'git')).find(isProgram);
  if (onPath === undefined) return undefined;
  const realGit = realpathSync(onPath);
  const runFrom = [onPath];
  const inExecPath = join(execPathOf(realGit), 'git');
  if (existsSync(inExecPath) && !runFrom.includes(inExecPath)) runFrom.push(inExecPath);
  removeStaleLeftovers(tmpdir(), GUARD_FOLDER_PREFIX, removeFolder);
  const folder = mkdtempSync(join(tmpdir(), `${GUARD_FOLDER_PREFIX}${process.pid}-`));
  const script = join(folder, 'git');
  writeFileSync(script, guardScript(), { mode: 0o555 });
  return { script, realGit, runFrom };
}

/** bwrap's arguments that put the guard in place for a call in `workspace` (after the system folders are mounted). */
export function gitGuardMounts(guard: GitGuard, workspace: string): string[] {
  return ['--ro-bind', guard.realGit, REAL_GIT, '--symlink', workspace, WORKSPACE_LINK, ...guard.runFrom.flatMap((path) => ['--ro-bind', guard.script, path])];
}

/** Where git runs its own commands from (a submodule's git among them). */
function execPathOf(git: string): string {
  try {
    return execFileSync(git, ['--exec-path'], { env: { PATH: SANDBOX_PATH }, encoding: 'utf8', timeout: 10_000 }).trim();
  } catch (error) {
    throw new Error(`could not ask ${git} for its exec path (git --exec-path): ${(error as Error).message}`);
  }
}

function isProgram(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Words and key names are [a-z0-9.*-] only, so they go into bash as they are. */
function guardScript(): string {
  const pinned = Object.entries(PINNED).flatMap(([key, value], index) => [`GIT_CONFIG_KEY_${index}=${key}`, `GIT_CONFIG_VALUE_${index}=${value}`]);
  const extraCases = Object.entries(EXTRA_OPTIONS).map(([subcommand, extra]) => `  ${subcommand}) options+=("$1" ${extra}); shift ;;`).join('\n');
  return `#!/bin/bash -p
# toolgate: git under a read-only grant runs no program a repository names (lib/exec/sandbox/git-guard.ts).
# -p: no BASH_ENV, no functions or SHELLOPTS from the environment.
set -u
refuse() {
  printf 'toolgate: git was not run: %s\\n' "$1" >&2
  exit 128
}
options=()
while (($# > 0)); do
  case $1 in
    ${GLOBAL_OPTIONS.join('|')}) options+=("$1"); shift ;;
    -*) refuse "under a read-only grant git takes no option before the subcommand but ${GLOBAL_OPTIONS.join(', ')} ($1 may change which settings, repository or programs git uses)" ;;
    *) break ;;
  esac
done
case \${1-} in
${extraCases}
esac

# An environment of git's own: nothing else the caller set (GIT_*, PAGER, EDITOR, LD_*), no system or global config.
environment=(PATH=${SANDBOX_PATH} GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null GIT_OPTIONAL_LOCKS=0 GIT_TERMINAL_PROMPT=0)
for name in HOME TMPDIR LANG LANGUAGE TERM TZ $(compgen -e LC_); do
  [[ -v $name ]] && environment+=("$name=\${!name}")
done

declare -A safe=(${SAFE_SETTINGS.map((key) => `['${key}']=1`).join(' ')})
declare -A safe_sections=(${SAFE_SECTIONS.map((section) => `['${section}']=1`).join(' ')})
# Every setting git would read here, as scope, origin and key, each ended by NUL.
while IFS= read -r -d '' scope && IFS= read -r -d '' origin && IFS= read -r -d '' key; do
  section=\${key%%.*}
  variable=\${key##*.}
  middle=\${key#*.}
  if [[ $middle == *.* ]]; then shape="$section.*.$variable"; else shape="$section.$variable"; fi
  [[ $key == core.worktree ]] && worktree_setting="the $scope setting core.worktree (\${origin#file:})"
  if [[ $section =~ ^[a-z0-9-]+$ && $variable =~ ^[a-z0-9-]+$ ]] && [[ -n \${safe_sections[$section]-} || -n \${safe[$shape]-} ]]; then continue; fi
  refuse "the $scope setting $key (\${origin#file:}) is not one git is known to use without running a program or reading another file, so a read-only grant does not run git here; remove the setting, or have the command approved"
done < <(/usr/bin/env -i "\${environment[@]}" ${REAL_GIT} config --list --show-scope --show-origin --name-only -z)
wait $! || refuse 'its settings could not be read (see the error above)'

# git reads the files of the work tree core.worktree names (relative to the git dir): it must lie in the workspace.
if [[ -n \${worktree_setting-} ]]; then
  workspace=$(cd -P ${WORKSPACE_LINK} && pwd) || refuse "$worktree_setting cannot be checked: the sandbox does not name its workspace"
  worktree=$(/usr/bin/env -i "\${environment[@]}" ${REAL_GIT} rev-parse --show-toplevel) && worktree=$(cd -P "$worktree" && pwd) ||
    refuse "$worktree_setting names a work tree git cannot use (see the error above)"
  [[ $worktree == "$workspace" || $worktree == "$workspace"/* ]] ||
    refuse "$worktree_setting makes git read the folder $worktree, which lies outside the workspace $workspace; set it to a folder inside the workspace, or remove it"
  # The work tree checked, whatever the setting says by the time git reads it again.
  environment+=("GIT_WORK_TREE=$worktree")
fi
exec /usr/bin/env -i "\${environment[@]}" GIT_CONFIG_COUNT=${Object.keys(PINNED).length} ${pinned.join(' ')} ${REAL_GIT} --no-pager \${options[@]+"\${options[@]}"} "$@"
`;
}
