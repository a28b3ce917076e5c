import { AnswerTooLargeError } from '../executors/bounded-body.ts';
import { BrokenAnswerError } from './errors.ts';
import { pause } from './pause.ts';
import { eventData, type StreamCursor } from './sse.ts';

/**
 * Opens a stream again from after `lastEventId` (a GET with `Last-Event-ID`). It throws a
 * BrokenAnswerError when the server will not: the request was sent, so its tool may have run.
 */
export type ReopenStream = (lastEventId: string, signal: AbortSignal) => Promise<ReadableStream<Uint8Array>>;

/** The reconnection delay when the server names none (the SSE standard leaves it to the client). */
const DEFAULT_RETRY_MS = 1_000;
/** The longest toolgate waits to reconnect, whatever `retry` the server names: a call has seconds, not hours. */
export const MAX_RETRY_MS = 5_000;
/** Reconnections of one stream before toolgate gives up on it: a server that keeps closing it is not answering. */
export const MAX_RECONNECTS = 8;

/**
 * The data of each message event of an answer's event stream, resumed as the 2025-11-25
 * Streamable HTTP transport says (Resumability and Redelivery, SEP-1699): when the stream ends
 * or breaks before the reader has what it waits for, and an event of it named an id, `reopen`
 * continues it from that id after the server's `retry` delay (at most MAX_RETRY_MS), at most
 * MAX_RECONNECTS times; the replayed events go to the same reader, under the same byte cap. A
 * stream without event ids ends as it ends. The reader stopping (it has its answer) ends it all,
 * and so does `signal` (the call's timeout or abort), during a delay or a reconnection too.
 */
export async function* resumableEventData(first: ReadableStream<Uint8Array>, maxBytes: number, signal: AbortSignal, reopen?: ReopenStream): AsyncGenerator<string> {
  const cursor: StreamCursor = { bytesRead: 0 };
  let body = first;
  for (let reconnects = 0; ; reconnects++) {
    try {
      yield* eventData(body, maxBytes, cursor);
    } catch (error) {
      // A connection that broke is resumed as one the server closed; an abort or an answer too large is the end.
      if (!reopen || cursor.lastEventId === undefined || signal.aborted || error instanceof AnswerTooLargeError) throw error;
    }
    if (!reopen || cursor.lastEventId === undefined) return;
    if (reconnects >= MAX_RECONNECTS) throw new BrokenAnswerError(`its event stream closed ${reconnects + 1} times before the answer came; toolgate stopped reconnecting to it`);
    await pause(Math.min(cursor.retryMs ?? DEFAULT_RETRY_MS, MAX_RETRY_MS), signal);
    body = await reopen(cursor.lastEventId, signal);
  }
}
