// The CLI bundle: lib/cli/main.ts and the project files it reaches, built by esbuild into plain
// JavaScript (dist/cli-<id>/, one chunk per lazily imported command; npm packages stay external
// but for the few small ones the quick commands load, see INLINED),
// so a command starts without type-stripping a few hundred files, and the quick commands run on
// any Node >= 20. The first `toolgate` command builds it, and rebuilds it when a source changed;
// `npm pack`/`npm publish` build it first (`prepack`) so an installed package ships it.
//
// Staleness, cheap and never wrong: dist/cli.json records, per input file, what esbuild was given
// (its SHA-256) and the file's stat at that moment (size, mtime, ctime, inode). A file whose stat
// is unchanged has not been written since (the kernel sets ctime on every write and every utimes),
// unless it was written within the file system's timestamp granularity of the recording: such a
// "racy" file (as git calls it) is compared by content. Any other stat change is compared by
// content too; a different hash, a missing file or a changed build recipe (this file) is stale.
// Plain JavaScript: it runs before any Node 22 or type stripping is there.
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, extname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const DIST = join(ROOT, 'dist');
const STAMP = join(DIST, 'cli.json');
const ENTRY = 'lib/cli/main.ts';
const RECIPE = 'bin/cli-bundle.js';
const FORMAT = 1;
/** Timestamps within this long before the stamp was written may hide a later write (FAT: 2 s). */
const RACY_MS = 2000;
const LOADERS = { '.ts': 'ts', '.js': 'js', '.mjs': 'js', '.cjs': 'js', '.json': 'json' };
/**
 * Packages `manifest validate` loads (schema validation), bundled in: Node would otherwise resolve
 * and compile their ~150 files one by one, most of its start-up. They are inputs like the sources.
 * Every other package is imported from node_modules when a command needs it.
 */
const INLINED = new Set(['ajv', 'fast-deep-equal', 'fast-uri', 'json-schema-traverse', 'require-from-string', '@cfworker/json-schema', '@eslint-community/regexpp', 'shell-quote']);
const packageName = (specifier) => specifier.split('/').slice(0, specifier.startsWith('@') ? 2 : 1).join('/');

/** The bundle's entry file if it is built from the current sources (rebuilt if not); undefined when it cannot be built here. */
export async function freshBundle() {
  try {
    const stamp = readStamp();
    if (stamp && installedAsDependency()) return join(DIST, stamp.dir, 'main.js');
    const check = stamp && existsSync(join(DIST, stamp.dir, 'main.js')) && checkInputs(stamp);
    if (check?.fresh) {
      if (check.restamp) writeStamp({ ...stamp, inputs: check.inputs });
      return join(DIST, stamp.dir, 'main.js');
    }
    return await buildBundle(stamp?.dir);
  } catch {
    return undefined; // e.g. dist/ not writable by this user: the sources run instead
  }
}

/** A package under node_modules is not edited, and Node will not strip types there: its shipped bundle is the CLI. */
function installedAsDependency() {
  const parent = dirname(ROOT);
  return basename(parent) === 'node_modules' || (basename(parent).startsWith('@') && basename(dirname(parent)) === 'node_modules');
}

function readStamp() {
  try {
    const stamp = JSON.parse(readFileSync(STAMP, 'utf8'));
    const valid = stamp.format === FORMAT && /^cli-[0-9a-f]{16}$/.test(stamp.dir) && typeof stamp.inputs === 'object';
    return valid ? { ...stamp, writtenAt: statSync(STAMP).mtimeMs } : undefined;
  } catch {
    return undefined;
  }
}

const sha256 = (bytes) => createHash('sha256').update(bytes).digest('hex');
const statOf = (file) => {
  const s = statSync(file);
  return [s.size, s.mtimeMs, s.ctimeMs, s.ino];
};
const sameStat = (a, b) => a.every((value, i) => value === b[i]);

/** { fresh, restamp, inputs }: fresh when every input holds what the bundle was built from. */
function checkInputs(stamp) {
  const inputs = {};
  let restamp = false;
  for (const [path, recorded] of Object.entries(stamp.inputs)) {
    const [hash, ...was] = recorded;
    let now;
    try {
      now = statOf(join(ROOT, path));
    } catch {
      return { fresh: false };
    }
    const racy = Math.max(was[1], was[2]) >= stamp.writtenAt - RACY_MS;
    if (sameStat(now, was) && !racy) {
      inputs[path] = recorded;
      continue;
    }
    if (sha256(readFileSync(join(ROOT, path))) !== hash) return { fresh: false };
    inputs[path] = [hash, ...now];
    restamp = true;
  }
  return { fresh: true, restamp, inputs };
}

/** Builds a new bundle and stamps it; undefined when esbuild is not installed or the sources do not build. */
export async function buildBundle(previousDir) {
  let esbuild;
  try {
    esbuild = await import('esbuild');
  } catch {
    return undefined;
  }
  const inputs = { [RECIPE]: recordInput(join(ROOT, RECIPE)).record };
  const recorder = {
    name: 'record-inputs',
    setup(build) {
      build.onResolve({ filter: /^[^./]/ }, (args) => (INLINED.has(packageName(args.path)) ? undefined : { external: true }));
      build.onLoad({ filter: /.*/ }, (args) => {
        const { record, bytes } = recordInput(args.path);
        inputs[relative(ROOT, args.path).split(sep).join('/')] = record;
        return { contents: bytes, loader: LOADERS[extname(args.path)] ?? 'default' };
      });
    },
  };
  const building = join(DIST, `.building-${process.pid}-${randomBytes(4).toString('hex')}`);
  try {
    await esbuild.build({
      absWorkingDir: ROOT,
      entryPoints: { main: ENTRY },
      outdir: building,
      bundle: true,
      splitting: true,
      format: 'esm',
      platform: 'node',
      target: 'node20.17',
      // Inputs are recorded by the path that imports them, not where a symlink leads: a link
      // pointed at another file then shows as a changed input (its stat and content follow the link).
      preserveSymlinks: true,
      plugins: [recorder],
      logLevel: 'silent',
    });
  } catch {
    rmSync(building, { recursive: true, force: true });
    return undefined;
  }
  const dir = `cli-${sha256(JSON.stringify(Object.entries(inputs).map(([path, [hash]]) => [path, hash]).sort())).slice(0, 16)}`;
  try {
    renameSync(building, join(DIST, dir));
  } catch {
    rmSync(building, { recursive: true, force: true }); // the same build is there already
  }
  writeStamp({ format: FORMAT, dir, inputs });
  removeOldBundles([dir, previousDir]);
  return join(DIST, dir, 'main.js');
}

/** The file's stat (taken before reading, so a write after it shows) and the hash of the bytes esbuild is given. */
function recordInput(file) {
  const stat = statOf(file);
  const bytes = readFileSync(file);
  return { record: [sha256(bytes), ...stat], bytes };
}

function writeStamp({ format, dir, inputs }) {
  mkdirSync(DIST, { recursive: true });
  const temporary = `${STAMP}.${process.pid}-${randomBytes(4).toString('hex')}`;
  writeFileSync(temporary, JSON.stringify({ format, dir, inputs }));
  renameSync(temporary, STAMP);
}

/** Keeps the new bundle and the one before it (a command starting right now may still be loading it). */
function removeOldBundles(keep) {
  for (const name of readdirSync(DIST)) {
    if (name.startsWith('cli-') && !keep.includes(name)) rmSync(join(DIST, name), { recursive: true, force: true });
  }
}

// `node bin/cli-bundle.js` (npm's `prepack`): build it now, for the package; only this bundle is kept.
if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  if (!(await buildBundle())) {
    console.error('toolgate: the CLI bundle did not build (`TOOLGATE_CLI_SOURCE=1 node bin/toolgate.js --help` shows why)');
    process.exitCode = 1;
  }
}
