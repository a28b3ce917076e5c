import { AnswerTooLargeError } from '../executors/bounded-body.ts';

/**
 * Where an event stream stands, kept across the connections of one stream (SEP-1699 resumption):
 * the id of the last event it carried and the reconnection delay its server asked for.
 */
export interface StreamCursor {
  /** Undefined until an event names a usable id (one that goes back as the Last-Event-ID header). */
  lastEventId?: string;
  /** The server's `retry`, in ms. */
  retryMs?: number;
  /** Bytes read, over every connection of the stream (the answer's cap covers them all). */
  bytesRead: number;
}

/** Longest event id kept: it goes back to the server as a header. */
const MAX_EVENT_ID_CHARS = 256;
/** An id sendable as a header value: visible ASCII (and spaces inside). */
const SENDABLE_ID = /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/;

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
  /** The last event ID buffer: set by `id` fields, committed to the cursor when an event ends. */
  #id: string | undefined;
  readonly #cursor: StreamCursor;

  constructor(cursor: StreamCursor) {
    this.#cursor = cursor;
    this.#id = cursor.lastEventId;
  }

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
      // Even an event without data moves the stream's cursor (a server's priming event for resumption).
      this.#cursor.lastEventId = this.#id;
      // An event without data is not dispatched.
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
    else if (field === 'id' && !value.includes('\0')) this.#id = this.#sendable(value);
    else if (field === 'retry' && /^[0-9]+$/.test(value)) this.#cursor.retryMs = Number(value);
  }

  /** An id toolgate cannot send back makes the stream unresumable (resuming from an older one would replay events). */
  #sendable(id: string): string | undefined {
    return id.length <= MAX_EVENT_ID_CHARS && SENDABLE_ID.test(id) ? id : undefined;
  }
}

/**
 * The data of each message event of an event stream, read at most `maxBytes` far (counted on from
 * `cursor.bytesRead`; the stream is cancelled past that, and when the reader stops early). The
 * cursor follows the stream's event ids and `retry`.
 */
export async function* eventData(body: ReadableStream<Uint8Array>, maxBytes: number, cursor: StreamCursor = { bytesRead: 0 }): AsyncGenerator<string> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const parser = new EventParser(cursor);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      cursor.bytesRead += value.byteLength;
      if (cursor.bytesRead > maxBytes) throw new AnswerTooLargeError(maxBytes);
      yield* parser.push(decoder.decode(value, { stream: true }));
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}
