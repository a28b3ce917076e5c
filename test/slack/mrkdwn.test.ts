import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { codeBlock, escapeMrkdwn, inlineCode, slackDate, truncateMrkdwn } from '../../lib/slack/mrkdwn.ts';

describe('mrkdwn helpers', () => {
  it('escapes exactly &, < and >', () => {
    expect(escapeMrkdwn('a & b <@U1> <!here> *bold* _it_')).toBe('a &amp; b &lt;@U1&gt; &lt;!here&gt; *bold* _it_');
    expect(inlineCode('a`b<c')).toBe('`aˋb&lt;c`');
    expect(codeBlock('x ``` y')).toBe('```\nx `\u200b`` y\n```');
  });

  it('cuts without splitting a surrogate pair, an entity or a <...> token', () => {
    expect(truncateMrkdwn('short', 10)).toBe('short');
    expect(truncateMrkdwn('abcdefghij', 5)).toBe('abcd…');
    expect(truncateMrkdwn('abc😀def', 5)).toBe('abc…');
    expect(truncateMrkdwn('ab&amp;cdef', 6)).toBe('ab…');
    expect(truncateMrkdwn('ab&amp;cdef', 9)).toBe('ab&amp;c…');
    expect(truncateMrkdwn('hi <@U12345> there', 9)).toBe('hi …');
    expect(truncateMrkdwn('hi <@U1> there', 10)).toBe('hi <@U1> …');
  });

  it('formats dates for each reader, with a UTC fallback', () => {
    expect(slackDate('2025-01-02T11:00:00.000Z')).toBe('<!date^1735815600^{date_short_pretty} {time}|2025-01-02 11:00 UTC>');
    expect(slackDate('soon <b>')).toBe('soon &lt;b&gt;');
  });
});

describe('lib/slack', () => {
  it('uses only Web Standard APIs (it runs on Workers): no node: imports', () => {
    const dir = new URL('../../lib/slack/', import.meta.url);
    const files = readdirSync(dir).filter((name) => name.endsWith('.ts'));
    expect(files.length).toBeGreaterThan(5);
    for (const name of files) expect(readFileSync(new URL(name, dir), 'utf8'), name).not.toMatch(/from ['"]node:|require\(|process\.|Buffer/);
  });
});
