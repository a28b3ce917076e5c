import { describe, expect, it } from 'vitest';
import type { ToolResult } from '../../lib/dispatch/call.ts';
import { CallFormatError, PROVIDER_FORMATS } from '../../lib/dispatch/formats/index.ts';
import { toCallToolResult } from '../../lib/mcp/call-result.ts';

const ok = (call_id: string, name: string, content: string): ToolResult => ({ call_id, name, status: 'ok', is_error: false, content, truncated: false, duration_ms: 1 });
const bad = (call_id: string, name: string, content: string): ToolResult => ({ ...ok(call_id, name, content), status: 'unknown_tool', is_error: true, error: { code: 'unknown_tool', message: content } });

describe('OpenAI calls and results', () => {
  it('reads tool_calls (top level or inside message) with JSON-string arguments', async () => {
    const tool_calls = [{ id: 'call_1', type: 'function', function: { name: 'echo', arguments: '{"text":"hi"}' } }];
    const expected = [{ call_id: 'call_1', name: 'echo', arguments: '{"text":"hi"}' }];
    expect(await PROVIDER_FORMATS.openai.readCalls({ tool_calls }, 't')).toEqual(expected);
    expect(await PROVIDER_FORMATS.openai.readCalls({ message: { role: 'assistant', tool_calls } }, 't')).toEqual(expected);
  });

  it('writes one role:tool message per result', () => {
    expect(PROVIDER_FORMATS.openai.writeResults([ok('call_1', 'echo', 'hi'), bad('call_2', 'x', 'Unknown tool')], [])).toEqual([
      { role: 'tool', tool_call_id: 'call_1', content: 'hi' },
      { role: 'tool', tool_call_id: 'call_2', content: 'Unknown tool' },
    ]);
  });

  it('rejects malformed shapes with a message naming the field', async () => {
    await expect(async () => PROVIDER_FORMATS.openai.readCalls({ tool_calls: [{ id: 'a', function: {} }] }, 't')).rejects.toThrow(new CallFormatError('tool_calls[0].function.name must be a non-empty string'));
    await expect(async () => PROVIDER_FORMATS.openai.readCalls({}, 't')).rejects.toThrow('tool_calls (or message.tool_calls) must be an array');
  });
});

describe('Anthropic calls and results', () => {
  it('reads tool_use blocks and ignores text blocks', async () => {
    const content = [
      { type: 'text', text: 'Let me check.' },
      { type: 'tool_use', id: 'toolu_1', name: 'echo', input: { text: 'hi' } },
    ];
    expect(await PROVIDER_FORMATS.anthropic.readCalls({ content }, 't')).toEqual([{ call_id: 'toolu_1', name: 'echo', arguments: { text: 'hi' } }]);
    expect(await PROVIDER_FORMATS.anthropic.readCalls({ message: { role: 'assistant', content } }, 't')).toHaveLength(1);
  });

  it('writes one user message with tool_result blocks, is_error included', () => {
    expect(PROVIDER_FORMATS.anthropic.writeResults([ok('toolu_1', 'echo', 'hi'), bad('toolu_2', 'x', 'nope')], [])).toEqual([
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_1', content: 'hi', is_error: false },
          { type: 'tool_result', tool_use_id: 'toolu_2', content: 'nope', is_error: true },
        ],
      },
    ]);
  });
});

describe('Gemini calls and results', () => {
  it('keeps ids Gemini gives and derives stable ids where it gives none', async () => {
    const parts = [{ text: 'ok' }, { functionCall: { name: 'echo', args: { text: 'a' } } }, { functionCall: { id: 'fc-7', name: 'echo', args: { text: 'b' } } }];
    const first = await PROVIDER_FORMATS.gemini.readCalls({ parts }, 'thread-1');
    const again = await PROVIDER_FORMATS.gemini.readCalls({ content: { role: 'model', parts } }, 'thread-1');
    const otherThread = await PROVIDER_FORMATS.gemini.readCalls({ parts }, 'thread-2');
    expect(first[0].call_id).toMatch(/^gemini_[0-9a-f]{24}$/);
    expect(again).toEqual(first);
    expect(otherThread[0].call_id).not.toBe(first[0].call_id);
    expect(first[1]).toEqual({ call_id: 'fc-7', name: 'echo', arguments: { text: 'b' } });
  });

  it('writes functionResponse parts: output on success, error on failure, id only when Gemini gave one', async () => {
    const calls = await PROVIDER_FORMATS.gemini.readCalls({ parts: [{ functionCall: { name: 'echo', args: {} } }, { functionCall: { id: 'fc-7', name: 'x', args: {} } }] }, 't');
    const results = [ok(calls[0].call_id, 'echo', 'hi'), bad('fc-7', 'x', 'Unknown tool')];
    expect(PROVIDER_FORMATS.gemini.writeResults(results, calls)).toEqual([
      {
        role: 'user',
        parts: [
          { functionResponse: { name: 'echo', response: { output: 'hi' } } },
          { functionResponse: { id: 'fc-7', name: 'x', response: { error: { code: 'unknown_tool', message: 'Unknown tool' } } } },
        ],
      },
    ]);
  });
});

describe('an indeterminate result (a side effect whose outcome was lost) in every format', () => {
  const lost: ToolResult = { ...ok('call_9', 'transfer', 'It may or may not have taken effect. Check whether it took effect before retrying.'), status: 'indeterminate', is_error: true, error: { code: 'indeterminate', message: 'It may or may not have taken effect.' } };

  it('is an error the model reads, with its message', () => {
    expect(PROVIDER_FORMATS.anthropic.writeResults([lost], [])).toEqual([{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'call_9', content: lost.content, is_error: true }] }]);
    expect(PROVIDER_FORMATS.openai.writeResults([lost], [])).toEqual([{ role: 'tool', tool_call_id: 'call_9', content: lost.content }]);
    const gemini = JSON.stringify(PROVIDER_FORMATS.gemini.writeResults([lost], []));
    expect(gemini).toContain('"error":{"code":"indeterminate"');
    expect(toCallToolResult(lost)).toMatchObject({ isError: true, content: [{ type: 'text', text: lost.content }], _meta: { 'toolgate/status': 'indeterminate' } });
  });
});
