// `npm run dev:deno`: functions/deno.ts under the `deno` npm package, on the local stand-ins.
import { resolve } from 'node:path';
import { DENO_BIN, denoProcessEnv, denoRunArgs } from './deno-command.ts';
import { runDev } from './supervise.ts';

await runDev({
  label: 'Deno',
  command(standIns, port) {
    // Deno's cache beside the demo key rather than in $HOME, unless DENO_DIR says otherwise.
    const denoDir = process.env.DENO_DIR ?? resolve(process.env.TOOLGATE_DATA_DIR ?? '.toolgate', 'deno');
    return {
      file: DENO_BIN,
      args: denoRunArgs(),
      env: { ...process.env, ...standIns.env, ...denoProcessEnv(denoDir), PORT: String(port), HOST: '127.0.0.1' },
    };
  },
});
