/**
 * One truly cold manifest load, run by `manifest-load` in a new Node process per round: nothing
 * compiled or warmed yet (no JIT, no engine instance, no meta-schema). The modules are imported
 * and the gateway's services built before the clock starts, as a process does before it serves.
 * Usage: node bench/manifest-load-cold.ts <ajv|cfworker> <stored|publish> <run> [untiered]; prints a
 * Split. `untiered`: ajv compiles a checked schema on its first call (no eval-free first calls).
 */
import { generateManifestText, measurePath, servicesFor, TOOL_COUNT, type LoadPath } from './manifest-load-paths.ts';
import type { EngineName } from '../lib/validation/validator.ts';

const [engine, path, run, variant] = process.argv.slice(2) as [EngineName, LoadPath, string, string | undefined];
const services = servicesFor(engine, { tiered: variant !== 'untiered' });
const text = generateManifestText(TOOL_COUNT, Number(run));
process.stdout.write(JSON.stringify(await measurePath(path, services, text)));
