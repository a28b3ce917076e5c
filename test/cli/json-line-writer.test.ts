import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { jsonLine, jsonLineWriter } from '../../lib/cli/json-line-writer.ts';

const WRITER = fileURLToPath(new URL('../../lib/cli/json-line-writer.ts', import.meta.url));
const nextTurn = () => new Promise<void>((done) => setImmediate(done));

describe('the JSON line writer of toolgate serve', () => {
  it('writes each line exactly as JSON.stringify({ time, event, ...fields }) would', () => {
    const cases: Array<[string, Record<string, unknown>]> = [
      ['tools.dispatch.started', { call_id: 'c1', name: 'echo', tenant: 'demo' }],
      ['empty', {}],
      ['a "quoted"\nevent', { nested: { b: [1, 2.5, null, 'x\u2028'] }, gone: undefined, fn: () => 1 }],
      ['overrides', { time: 'not now', event: 'other', level: 'warn' }],
      ['only event', { event: 'renamed' }],
      ['own toJSON', { toJSON: () => ({ replaced: true }) }],
      ['with a date', { at: new Date(0) }],
      ['array', ['a', 'b'] as unknown as Record<string, unknown>],
      ['integer keys', { tool: 'echo', 7: 'seven', '10': 'ten' }],
      ['a digit-led key', { '1st': true }],
      ['proto key', JSON.parse('{"__proto__": {"polluted": true}, "ok": 1}') as Record<string, unknown>],
    ];
    for (const [event, fields] of cases) {
      const line = jsonLine(event, fields);
      const time = (JSON.parse(line) as { time?: string }).time;
      const timeNow = typeof time === 'string' && !Number.isNaN(Date.parse(time)) ? time : new Date().toISOString();
      const expected = JSON.stringify({ time: timeNow, event, ...fields });
      expect(line, event).toBe(expected);
    }
  });

  it('writes the lines of one turn in one write, complete and in order', async () => {
    const writes: string[] = [];
    const lines = jsonLineWriter({ write: (text) => writes.push(text) });
    try {
      for (let i = 0; i < 3; i++) lines.log('tools.dispatch.started', { i });
      expect(writes).toEqual([]); // nothing written on the request path
      await nextTurn();
      lines.log('tools.dispatch.completed', { i: 3 });
      await nextTurn();
      expect(writes).toHaveLength(2);
      const parsed = writes.join('').split('\n').filter(Boolean).map((line) => JSON.parse(line) as { event: string; i: number; time: string });
      expect(parsed.map((line) => line.i)).toEqual([0, 1, 2, 3]);
      expect(parsed[3].event).toBe('tools.dispatch.completed');
      expect(Number.isNaN(Date.parse(parsed[0].time))).toBe(false);
    } finally {
      lines.close();
    }
  });

  it('flush and close write what is buffered at once', () => {
    const writes: string[] = [];
    const lines = jsonLineWriter({ write: (text) => writes.push(text) });
    lines.log('a', {});
    lines.flush();
    lines.log('b', {});
    lines.close();
    expect(writes.map((text) => (JSON.parse(text) as { event: string }).event)).toEqual(['a', 'b']);
  });

  it('writes multi-byte text whole when the pipe takes a flush in parts', () => {
    // 2,000 lines of 3-byte and 4-byte characters: far more than a pipe holds, so the write is
    // partial and the rest goes on from the byte (not the character) where the pipe stopped.
    const script = `import { jsonLineWriter } from ${JSON.stringify(WRITER)};
      const lines = jsonLineWriter();
      for (let i = 0; i < 2000; i++) lines.log('tools.dispatch.completed', { i, text: '€😀'.repeat(100) });`;
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
    const logged = child.stdout.split('\n').filter(Boolean).map((line) => JSON.parse(line) as { i: number; text: string });
    expect(logged.map((line) => line.i)).toEqual(Array.from({ length: 2000 }, (_, i) => i));
    expect(logged.every((line) => line.text === '€😀'.repeat(100))).toBe(true);
  });

  // A process that logs and ends in the same turn, before any flush was due.
  const ENDINGS = {
    'a normal end': '',
    'process.exit()': 'process.exit(3);',
    'an uncaught exception': 'throw new Error("boom");',
  };
  for (const [ending, code] of Object.entries(ENDINGS)) {
    it(`loses no line at ${ending}`, () => {
      const script = `import { jsonLineWriter } from ${JSON.stringify(WRITER)};
        const lines = jsonLineWriter();
        for (let i = 0; i < 2000; i++) lines.log('tools.dispatch.completed', { i, text: 'x'.repeat(200) });
        ${code}`;
      const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
      const logged = child.stdout.split('\n').filter(Boolean).map((line) => (JSON.parse(line) as { i: number }).i);
      expect(logged).toEqual(Array.from({ length: 2000 }, (_, i) => i));
      expect(child.stdout.endsWith('\n')).toBe(true);
    });
  }
});
