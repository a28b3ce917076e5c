import { writeSync } from 'node:fs';
import type { Logger } from '../dispatch/events.ts';

/** Where the lines go: standard output by default (a test passes its own). */
export interface LineOutput {
  write(text: string): unknown;
}

const WAIT = new Int32Array(new SharedArrayBuffer(4));

/**
 * Writes all of `text` to file descriptor `fd` before returning. process.stdout would queue a
 * write the pipe cannot take at once and lose it at process.exit(); a write(2) of our own does
 * not. A full non-blocking pipe (EAGAIN) is waited out a millisecond at a time, as a blocking
 * write would; a reader that is gone (EPIPE) takes the lines with it: logging never stops the gateway.
 */
function writeAllTo(fd: number): LineOutput {
  return {
    write(text) {
      // The text goes as it is (no Buffer to make first): the pipe nearly always takes it whole.
      let written: number;
      try {
        written = writeSync(fd, text);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') return;
        written = 0;
      }
      const length = Buffer.byteLength(text);
      if (written === length) return;
      let bytes = Buffer.from(text).subarray(written);
      while (bytes.length > 0) {
        try {
          bytes = bytes.subarray(writeSync(fd, bytes));
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') return;
          Atomics.wait(WAIT, 0, 0, 1);
        }
      }
    },
  };
}

let lastMs = Number.NaN;
let lastTime = '';

/** The time of a line: formatting a Date costs more than the rest of a short line, and a turn logs many in the same millisecond. */
function isoNow(): string {
  const ms = Date.now();
  if (ms !== lastMs) {
    lastMs = ms;
    lastTime = new Date(ms).toISOString();
  }
  return lastTime;
}

/**
 * `JSON.stringify({ time, event, ...fields })`, without copying `fields` into a new object: the
 * same text (a test compares them), written as the head and the fields' own object text.
 */
export function jsonLine(event: string, fields: Record<string, unknown>): string {
  if (Array.isArray(fields) || 'toJSON' in fields || Object.hasOwn(fields, 'time') || Object.hasOwn(fields, 'event')) return JSON.stringify({ time: isoNow(), event, ...fields });
  const rest = JSON.stringify(fields);
  // An integer-like key is listed before `time` in the spread object (JS orders those keys first);
  // such a key leads `rest` when there is one, so a digit there takes the spread's way.
  if (rest.charCodeAt(2) >= 48 && rest.charCodeAt(2) <= 57) return JSON.stringify({ time: isoNow(), event, ...fields });
  const head = `{"time":"${isoNow()}","event":${JSON.stringify(event)}`;
  return rest === '{}' ? `${head}}` : `${head},${rest.slice(1)}`;
}

export interface JsonLineWriter {
  /** One JSON object per line with `time` and `event` (DESIGN.md "Conventions"), buffered. */
  log: Logger;
  /** Writes what is buffered now (also done at the end of each turn of the event loop and at exit). */
  flush(): void;
  /** Flushes and stops listening for the process's exit. */
  close(): void;
}

/**
 * The JSON line logger of `toolgate serve`. A call logs three lines, and stdout on a pipe or a
 * file is written synchronously: one write(2) per line would cost three system calls per call on
 * the request path. Lines are gathered instead and written together once per turn of the event
 * loop (setImmediate), in the order logged, with one synchronous write(2). At the process's `exit`
 * (a normal end, process.exit(), an uncaught exception) what is still buffered is written before
 * the process goes, so no line is lost or reordered; only a SIGKILL can drop the last turn's lines.
 */
export function jsonLineWriter(output: LineOutput = writeAllTo(process.stdout.fd)): JsonLineWriter {
  let buffered = '';
  const flush = () => {
    if (buffered === '') return;
    const text = buffered;
    buffered = '';
    output.write(text);
  };
  process.on('exit', flush);
  return {
    log(event, fields) {
      if (buffered === '') setImmediate(flush);
      buffered += `${jsonLine(event, fields)}\n`;
    },
    flush,
    close() {
      flush();
      process.off('exit', flush);
    },
  };
}
