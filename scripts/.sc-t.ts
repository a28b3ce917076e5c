import { schemaCostProblem } from '../lib/validation/schema-cost.ts';
const properties: Record<string, unknown> = {};
for (let i = 0; i < 100_000; i++) properties[`p${i}`] = { $ref: '#/$defs/shared' };
let t = performance.now(); schemaCostProblem({ type: 'object', properties, $defs: { shared: { type: 'string' } } }); console.log('props', performance.now() - t);
const branches = Array.from({ length: 100_000 }, () => ({ $ref: '#/$defs/shared' }));
t = performance.now(); schemaCostProblem({ anyOf: branches, $defs: { shared: { type: 'string' } } }); console.log('anyOf', performance.now() - t);
