import { describe, expect, it } from 'vitest';
import { loadedConditionEngine } from '../../lib/governance/conditions/condition.ts';
import { testGateway } from '../helpers/gateway.ts';
import { validManifest } from '../helpers/manifests.ts';

const schema = { type: 'object', properties: { amount: { type: 'number' } } };
const echo = (name: string) => ({ name, tier: 'write', executor: { kind: 'builtin', name: 'echo' }, input_schema: schema });

/** The CEL engine is loaded by the first call that could reach a rule with a condition, never before (this file runs in its own module graph). */
describe('the condition engine loads lazily', () => {
  it('calls of tools without conditions never load it; the first call a condition could apply to does', async () => {
    // validManifest checks without conditions, so nothing is loaded by the publish checks either.
    const manifest = validManifest({ tenant: 'acme', policy: { write: 'grant', rules: [{ tool: 'echo', arguments: { amount: '[0-9]+' }, action: 'grant' }] }, tools: [echo('echo'), echo('refund')] });
    const withCondition = { ...manifest, version: '2', policy: { write: 'grant' as const, rules: [{ tool: 'refund', condition: 'args.amount > 100.0', action: 'review' as const }] } };
    const gw = await testGateway([withCondition], { agent: { tenant: 'acme', principal: 'agent' } });
    const call = async (name: string, amount: number) => (await (await gw.request('/v1/dispatch', { key: 'agent', json: { thread_id: 'th', calls: [{ call_id: `${name}-${amount}`, name, arguments: { amount } }] } })).json()).results[0];
    expect((await call('echo', 5)).status).toBe('ok');
    expect(loadedConditionEngine()).toBeUndefined();
    expect((await call('refund', 500)).status).toBe('pending_approval');
    expect(loadedConditionEngine()).toBeDefined();
  });
});
