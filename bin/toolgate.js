#!/usr/bin/env node
// The `toolgate` command. Node >= 22.18 runs the TypeScript sources directly (type stripping);
// an older node (say the system's Node 20) hands over to the Node 22 npm installed in the project.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 18)) {
  const node22 = fileURLToPath(new URL('../node_modules/node/bin/node', import.meta.url));
  if (!existsSync(node22)) {
    console.error(`toolgate needs Node >= 22.18 (this is ${process.version}): run \`npm install\` in the project first`);
    process.exit(1);
  }
  const child = spawnSync(node22, [fileURLToPath(import.meta.url), ...process.argv.slice(2)], { stdio: 'inherit' });
  process.exit(child.status ?? 1);
}

// node:sqlite works fine but still announces itself as experimental on Node 22; keep the output clean.
const emitWarning = process.emitWarning.bind(process);
process.emitWarning = (warning, ...rest) => {
  const type = typeof rest[0] === 'string' ? rest[0] : rest[0]?.type;
  if (type === 'ExperimentalWarning' && String(warning).includes('SQLite')) return;
  return emitWarning(warning, ...rest);
};

const { main } = await import('../lib/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
