import { describe, expect, it } from 'vitest';
import { eventId, MAX_EVENT_ID, readEventId, streamIdBase, streamOwner, type StreamName } from '../../lib/mcp/stream-event-id.ts';

/** The event ids of resumable MCP streams: what they name, and what is refused as no id of toolgate's. */
const name = async (overrides: Partial<StreamName> = {}): Promise<StreamName> => ({ owner: await streamOwner('acme', 'agent'), requestId: 7, thread_id: 'mcp:agent', call_id: 'mcp_0123', record: 'c', ...overrides });
const encode = (value: unknown) => `tg1.${Buffer.from(JSON.stringify(value)).toString('base64url')}`;

describe('stream event ids', () => {
  it('name the stream and a place in it, in visible ASCII, for every record kind and request id type', async () => {
    for (const overrides of [{}, { record: 'k' as const, requestId: 'req-ü' }, { record: 'n' as const, thread_id: '', call_id: '' }]) {
      const stream = await name(overrides);
      const base = streamIdBase(stream)!;
      for (const place of [0, 3, 'end'] as const) {
        const id = eventId(base, place);
        expect(id).toMatch(/^[\x21-\x7e]+$/);
        expect(readEventId(id)).toEqual({ name: stream, place });
      }
    }
  });

  it('are bounded: a stream whose ids would pass the bound gets none', async () => {
    expect(streamIdBase(await name({ requestId: 'x'.repeat(MAX_EVENT_ID) }))).toBeUndefined();
    expect(streamIdBase(await name({ call_id: 'é'.repeat(200), thread_id: 't'.repeat(200), requestId: 'r'.repeat(300) }))!.length).toBeLessThanOrEqual(MAX_EVENT_ID);
  });

  it('refuse anything toolgate did not make', async () => {
    const good = await name();
    const payload = [good.owner, good.requestId, good.thread_id, good.call_id, good.record];
    const refused = [
      '', 'tg1.', 'tg1..0', 'tg2.' + encode(payload).slice(4) + '.0', `${encode(payload)}.01`, `${encode(payload)}.-1`, `${encode(payload)}.1e3`, `${encode(payload)}.9999999999`,
      `${encode(payload)}.0`.replace('tg1.', 'tg1.!'), `${encode(payload.slice(0, 4))}.0`, `${encode([...payload, 'extra'])}.0`,
      `${encode(['NOTHEX0123456789', ...payload.slice(1)])}.0`, `${encode([good.owner, 1.5, ...payload.slice(2)])}.0`, `${encode([good.owner, 7, 'mcp:agent', '', 'c'])}.0`,
      `${encode([good.owner, 7, 'mcp:agent', 'c1', 'x'])}.0`, `tg1.${Buffer.from([0xff, 0xfe]).toString('base64url')}.0`, `${encode(payload)}.${'1'.repeat(MAX_EVENT_ID)}`,
    ];
    for (const id of refused) expect(readEventId(id), id).toBeUndefined();
  });
});
