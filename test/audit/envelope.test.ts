import { describe, expect, it } from 'vitest';
import { chainEnvelopes, envelopeHash, type EnvelopeDraft } from '../../lib/audit/envelope.ts';
import { verifyChain } from '../../lib/audit/verify.ts';
import { canonicalJson, sha256Hex } from '../../lib/idempotency/canonical-json.ts';

const thread = { tenant: 'acme', thread_id: 't-1' };
const drafts: Array<EnvelopeDraft & { id: string; time: string }> = [
  { type: 'tool.call.request', call_id: 'c1', tool: 'echo', principal: 'p', args_hash: 'a'.repeat(64), manifest_version: '3', data: { arguments: { text: 'hi', 'é"': [1, null] } }, id: 'id-1', time: '2026-01-01T00:00:00.000Z' },
  { type: 'tool.call.result', call_id: 'c1', tool: 'echo', principal: 'p', args_hash: null, data: { status: 'ok', output: 'hi' }, id: 'id-2', time: '2026-01-01T00:00:00.000Z' },
];

describe('audit envelopes', () => {
  it('are chained exactly as before: the same keys in the same order, each hash over the body without it', async () => {
    const chained = await chainEnvelopes(thread, { seq: 4, hash: 'f'.repeat(64) }, drafts);
    let prev = { seq: 4, hash: 'f'.repeat(64) };
    for (const [i, draft] of drafts.entries()) {
      const body = { ...draft, tenant: thread.tenant, thread_id: thread.thread_id, seq: prev.seq + 1, prev_hash: prev.hash };
      const expected = { ...body, hash: await sha256Hex(canonicalJson(body)) };
      // The stored text (JSON.stringify) as well as the value: key order is part of what is stored.
      expect(JSON.stringify(chained[i])).toBe(JSON.stringify(expected));
      expect(await envelopeHash(chained[i])).toBe(expected.hash);
      prev = { seq: expected.seq, hash: expected.hash };
    }
    expect(await verifyChain([{ ...chained[0], seq: 1, prev_hash: null, hash: await envelopeHash({ ...chained[0], seq: 1, prev_hash: null }) }])).toMatchObject({ ok: true, count: 1 });
  });
});
