import { eventId, type StreamPlace } from './stream-event-id.ts';

const encoder = new TextEncoder();

/**
 * The event stream (text/event-stream) of one MCP answer: JSON-RPC messages, one `message`
 * event each, as the Streamable HTTP transport sends them. A client that went away makes every
 * later send a no-op (on HTTP, closing the stream is how a client stops listening).
 *
 * A resumable stream (SEP-1699, stream-resumption.ts) starts with a priming event (an id, a
 * `retry` and empty data), and every event after it carries an id of the same stream.
 */
export class McpEventStream {
  readonly readable: ReadableStream<Uint8Array>;
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  #open = true;
  /** The id prefix once primed, and the place of the last event sent. */
  #ids?: { base: string; place: number };

  constructor() {
    const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
    this.readable = readable;
    this.#writer = writable.getWriter();
  }

  get primed(): boolean {
    return this.#ids !== undefined;
  }

  /** The priming event: the stream's first id, and how long a client waits before resuming it (ms). */
  prime(base: string, retryMs: number): void {
    this.#ids = { base, place: 0 };
    this.#write(`id: ${eventId(base, 0)}\nretry: ${retryMs}\ndata:\n\n`);
  }

  /**
   * A stream resumed from `place` (GET + Last-Event-ID): its events continue the stream's ids,
   * and the client hears again how long to wait before resuming it once more.
   */
  resumeAt(base: string, place: number, retryMs: number): void {
    this.#ids = { base, place };
    this.#write(`retry: ${retryMs}\n\n`);
  }

  /**
   * One message, at the stream's next place; `end` marks the answer, after which the stream has
   * nothing more; `same` keeps the place (a notice that changes nothing: resuming from its id
   * asks for the same rest again).
   */
  send(message: unknown, at: 'next' | 'end' | 'same' = 'next'): void {
    const data = `event: message\ndata: ${JSON.stringify(message)}\n\n`;
    this.#write(this.#ids ? `id: ${eventId(this.#ids.base, this.#place(at))}\n${data}` : data);
  }

  close(): void {
    if (!this.#open) return;
    this.#open = false;
    this.#writer.close().catch(() => {});
  }

  #place(at: 'next' | 'end' | 'same'): StreamPlace {
    if (at === 'end') return 'end';
    return at === 'next' ? ++this.#ids!.place : this.#ids!.place;
  }

  #write(text: string): void {
    if (!this.#open) return;
    this.#writer.write(encoder.encode(text)).catch(() => this.#gone());
  }

  #gone(): void {
    this.#open = false;
  }
}
