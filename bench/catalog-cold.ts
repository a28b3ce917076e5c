/**
 * One cold dispatch on a stored 10,000-tool catalog, run by `catalog-publish` in a new Node
 * process per round: the modules are imported and the store opened before the clock starts; then
 * what a new isolate does for its first call: read the active version back from its parts (and
 * check them), build the tenant runtime, dispatch one call (which compiles that tool's schema).
 * Usage: node bench/catalog-cold.ts <sqlite file> <tenant> <tool>; prints {read_ms, build_ms,
 * dispatch_ms, total_ms, cpu_ms}: cpu_ms is the process's CPU time over the same span.
 */
import { dispatchCall } from '../lib/dispatch/pipeline.ts';
import { buildTenantRuntime } from '../lib/dispatch/tenant-runtime.ts';
import { createGateway } from '../lib/http/gateway.ts';
import { loadActivePointer, loadPublished } from '../lib/registry/manifest/manifest-store.ts';
import { SqliteStore } from '../lib/stores/sqlite/sqlite-store.ts';

const [file, tenant, tool] = process.argv.slice(2);
const store = new SqliteStore(file);
const { services } = createGateway({ store, env: {} });
const cpu = process.cpuUsage();
const t0 = performance.now();
const pointer = await loadActivePointer(store, tenant);
const published = await loadPublished(store, tenant, pointer!.version);
const t1 = performance.now();
const runtime = buildTenantRuntime(published!.manifest, services, { schemasChecked: true });
const t2 = performance.now();
const result = await dispatchCall(runtime.deps, { tenant, principal: 'bench', scopes: new Set(), thread_id: 'bench', env: {} }, { call_id: 'first', name: tool, arguments: { query: 'machine learning' } });
const t3 = performance.now();
const used = process.cpuUsage(cpu);
if (result.status !== 'ok') throw new Error(`the first dispatch failed: ${result.content}`);
await store.close();
process.stdout.write(JSON.stringify({ read_ms: t1 - t0, build_ms: t2 - t1, dispatch_ms: t3 - t2, total_ms: t3 - t0, cpu_ms: (used.user + used.system) / 1000 }));
