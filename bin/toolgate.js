#!/usr/bin/env node
// The `toolgate` command. It runs the CLI bundle (bin/cli-bundle.js: plain JavaScript, rebuilt when
// a source changed), or the TypeScript sources where no bundle can be built. Node >= 22.18 runs
// everything; an older node (say the system's Node 20) runs the quick commands below from the
// bundle itself and hands everything else (node:sqlite needs Node 22) to the Node 22 npm installed
// in the project.
import { existsSync } from 'node:fs';
import module from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { freshBundle } from './cli-bundle.js';

const args = process.argv.slice(2);
const [major, minor] = process.versions.node.split('.').map(Number);
const node22 = major > 22 || (major === 22 && minor >= 18);
/** Commands whose code runs on Node 20 (tested: test/cli/bundle.test.ts). */
const quick = args.length === 0 || ['help', '--help', '-h', '--version', '-v'].includes(args[0]) || (args[0] === 'manifest' && args[1] === 'validate');

async function handOverToNode22() {
  const bundled = fileURLToPath(new URL('../node_modules/node/bin/node', import.meta.url));
  if (!existsSync(bundled)) {
    console.error(`toolgate ${args[0]} needs Node >= 22.18 (this is ${process.version}); in a clone of toolgate, \`npm install\` brings one`);
    process.exit(1);
  }
  const { spawnSync } = await import('node:child_process'); // only here: loading it costs every command
  const child = spawnSync(bundled, [fileURLToPath(import.meta.url), ...args], { stdio: 'inherit' });
  process.exit(child.status ?? 1);
}

if (!node22 && !quick) await handOverToNode22();
const bundle = process.env.TOOLGATE_CLI_SOURCE ? undefined : await freshBundle();
if (!bundle && !node22) await handOverToNode22();

// Node 22 keeps the compiled code of every module it loads (checked against the source's hash),
// in the project's dist/ rather than Node's default under the shared /tmp, where another local
// user could plant code caches; NODE_COMPILE_CACHE still chooses another place.
module.enableCompileCache?.(process.env.NODE_COMPILE_CACHE || fileURLToPath(new URL('../dist/compile-cache', import.meta.url)));

// node:sqlite works fine but still announces itself as experimental on Node 22; keep the output clean.
const emitWarning = process.emitWarning.bind(process);
process.emitWarning = (warning, ...rest) => {
  const type = typeof rest[0] === 'string' ? rest[0] : rest[0]?.type;
  if (type === 'ExperimentalWarning' && String(warning).includes('SQLite')) return;
  return emitWarning(warning, ...rest);
};

const { main } = await import(bundle ? pathToFileURL(bundle).href : '../lib/cli/main.ts');
process.exitCode = await main(args);
