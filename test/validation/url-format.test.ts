/**
 * `format: "url"` in linear time on both engines (url-format.ts). Before, any tool whose schema
 * used it could be stalled by one short argument: the eval-free engine's regular expression is
 * exponential in the host name (`http://` + 26 × `a` + `!` took 444 ms, 4× per two characters
 * more, so the 40 below would take hours), ajv-formats' quadratic in the length (100,000 colons:
 * 10 s). Outcomes only; a stall shows as this file's timeout.
 */
import { describe, expect, it } from 'vitest';
import { createAjvValidator } from '../../lib/validation/ajv-engine.ts';
import { createCfworkerValidator } from '../../lib/validation/cfworker-engine.ts';
import { isUrl } from '../../lib/validation/url-format.ts';

const schema = { type: 'object', properties: { u: { type: 'string', format: 'url' } } };

describe('format url', () => {
  it('accepts absolute http, https and ftp URLs with a host, and nothing else', () => {
    for (const url of ['https://example.com', 'http://a.b/c?d=e#f', 'ftp://files.example.org/x', 'HTTPS://EXAMPLE.COM:8443/', 'http://user:pw@host.example/', 'http://[::1]:80/', 'https://bücher.example/'])
      expect([url, isUrl(url)]).toEqual([url, true]);
    for (const url of ['example.com', '/relative', 'mailto:a@b.c', 'https://', 'https:///path', 'http://a b.com', 'http://a.com/ x', 'javascript:alert(1)', 'http://exa mple.com', ''])
      expect([url, isUrl(url)]).toEqual([url, false]);
  });

  for (const [engine, make] of [
    ['ajv', createAjvValidator],
    ['cfworker', createCfworkerValidator],
  ] as const) {
    it(`${engine}: the backtracking attacks answer at once, as problems`, () => {
      const validate = make().compile(schema);
      expect(validate({ u: 'https://example.com/path' }).valid).toBe(true);
      // Each fails after the host, which makes the old expressions backtrack over it.
      for (const attack of [`http://${'a'.repeat(40)} !`, `http://${'a-'.repeat(5_000)}\t`, `http://${':'.repeat(100_000)}`, `http://${'1:'.repeat(50_000)}`]) {
        const outcome = validate({ u: attack });
        expect(outcome.valid).toBe(false);
      }
    });
  }
});
