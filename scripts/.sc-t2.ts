import { schemaCostProblem } from '../lib/validation/schema-cost.ts';
import { lintSchema } from '../lib/validation/schema-lint.ts';
const properties: Record<string, unknown> = {};
for (let i = 0; i < 100_000; i++) properties[`p${i}`] = { $ref: '#/$defs/shared' };
const s = { type: 'object', properties, $defs: { shared: { type: 'string' } } };
console.log('bytes', JSON.stringify(s).length);
for (let k = 0; k < 3; k++) {
let t = performance.now(); schemaCostProblem(s); const a = performance.now() - t;
t = performance.now(); lintSchema(s); const b = performance.now() - t;
t = performance.now(); JSON.parse(JSON.stringify(s)); const c = performance.now() - t;
console.log('cost', a.toFixed(0), 'lint (incl cost)', b.toFixed(0), 'json roundtrip', c.toFixed(0));
}
