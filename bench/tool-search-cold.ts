/**
 * One cold load of a stored tool search index, run by `tool-search` in a new Node process per
 * round: import the search code, read the index text as a store would answer it (a file here;
 * the store's own round trips are the stores bench's), check and load it, run one query.
 * Usage: node bench/tool-search-cold.ts <index.json> <query>; prints {import_ms, load_ms, first_query_ms, total_ms,
 * cpu_ms}: cpu_ms is the process's CPU time over the same span (the machine's other work does not count).
 */
import { readFileSync } from 'node:fs';

const [file, query] = process.argv.slice(2);
const text = readFileSync(file, 'utf8');
const cpu = process.cpuUsage();
const started = performance.now();
const { readPackedIndex, SearchIndex } = await import('../lib/search/bm25-index.ts');
const imported = performance.now();
const packed = readPackedIndex(text);
if (!packed) throw new Error('the stored index does not read back');
const index = new SearchIndex(packed);
const loaded = performance.now();
const hits = index.search(query, 5, () => true);
const done = performance.now();
const used = process.cpuUsage(cpu);
if (hits.length === 0) throw new Error('the first query found nothing');
process.stdout.write(JSON.stringify({ import_ms: imported - started, load_ms: loaded - imported, first_query_ms: done - loaded, total_ms: done - started, cpu_ms: (used.user + used.system) / 1000 }));
