import { AnswerTooLargeError } from '../executors/bounded-body.ts';

/**
 * Server-sent events, parsed as the HTML standard says (lines end in LF, CR or CRLF; `data:`
 * lines join with LF; a blank line ends an event; `:` starts a comment), one pass over each
 * character so no answer's shape can make parsing slow.
 */
class EventParser {
  #line = '';
  #data: string[] = [];
  #event = '';
  #afterCr = false;

  /** Feeds decoded text; returns the data of each `message` event it completed. */
  push(text: string): string[] {
    const done: string[] = [];
    let start = 0;
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i);
      if (code !== 10 && code !== 13) continue;
      // The LF of a CRLF whose CR ended the previous line.
      if (code === 10 && this.#afterCr && i === start) {
        this.#afterCr = false;
        start = i + 1;
        continue;
      }
      this.#line += text.slice(start, i);
      this.#afterCr = code === 13;
      this.#endLine(done);
      start = i + 1;
    }
    if (start < text.length) this.#afterCr = false;
    this.#line += text.slice(start);
    return done;
  }

  #endLine(done: string[]): void {
    const line = this.#line;
    this.#line = '';
    if (line === '') {
      // An event without data (a server's priming event for resumption, say) is not dispatched.
      const data = this.#data.join('\n');
      if (data !== '' && (this.#event === '' || this.#event === 'message')) done.push(data);
      this.#data = [];
      this.#event = '';
      return;
    }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + (line[colon + 1] === ' ' ? 2 : 1));
    if (field === 'data') this.#data.push(value);
    else if (field === 'event') this.#event = value;
  }
}

/**
 * The data of each message event of an event stream, read at most `maxBytes` far (the stream is
 * cancelled past that, and when the reader stops early).
 */
export async function* eventData(body: ReadableStream<Uint8Array>, maxBytes: number): AsyncGenerator<string> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const parser = new EventParser();
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      total += value.byteLength;
      if (total > maxBytes) throw new AnswerTooLargeError(maxBytes);
      yield* parser.push(decoder.decode(value, { stream: true }));
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}
