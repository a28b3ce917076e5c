const encoder = new TextEncoder();

/**
 * The event stream (text/event-stream) of one MCP answer: JSON-RPC messages, one `message`
 * event each, as the Streamable HTTP transport sends them. A client that went away makes every
 * later send a no-op (on HTTP, closing the stream is how a client stops listening).
 */
export class McpEventStream {
  readonly readable: ReadableStream<Uint8Array>;
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  #open = true;

  constructor() {
    const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
    this.readable = readable;
    this.#writer = writable.getWriter();
  }

  send(message: unknown): void {
    if (!this.#open) return;
    this.#writer.write(encoder.encode(`event: message\ndata: ${JSON.stringify(message)}\n\n`)).catch(() => this.#gone());
  }

  close(): void {
    if (!this.#open) return;
    this.#open = false;
    this.#writer.close().catch(() => {});
  }

  #gone(): void {
    this.#open = false;
  }
}
