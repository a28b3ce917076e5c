import { toHex } from '../../crypto/sha256.ts';
import type { JsonObject } from '../../registry/json.ts';
import type { JsonObject as Answer } from '../../mcp-wire/json-rpc.ts';
import type { RecordStore } from '../../stores/store.ts';
import type { UpstreamRequest } from './client-asker.ts';
import { REPLY_TTL_MS } from './reply-slots.ts';
import { wake, waitFor } from './store-wait.ts';

/**
 * What a 2026-07-28 call whose upstream asks its client for input says, step by step, to the
 * requests of its client: the instance running the call writes each step to the store (a request
 * for the client under its reply slot's id, then the call's answer), and whichever instance the
 * client's retry reaches reads the next one. Steps are numbered from 1 and written once each, so
 * a reader never misses one that a later step would have replaced.
 */

export type InputStep = { seq: number; kind: 'ask'; reply_id: string; request: UpstreamRequest } | { seq: number; kind: 'done'; answer: Answer };

type StepBody = { kind: 'ask'; reply_id: string; request: UpstreamRequest } | { kind: 'done'; answer: Answer };

const stepKey = (tenant: string, channel: string, seq: number) => `mcp-input/${encodeURIComponent(tenant)}/${channel}/${seq}`;

/** The steps of one call, written by the instance running it. */
export class InputChannel {
  readonly id = `tgc_${toHex(crypto.getRandomValues(new Uint8Array(16)))}`;
  readonly #store: RecordStore;
  readonly #tenant: string;
  readonly #now: () => number;
  #seq = 0;
  #firstWritten: (step: InputStep) => void = () => {};
  /** The first step, as soon as this process writes it (the call's own request waits on it without reading the store). */
  readonly first: Promise<InputStep>;

  constructor(store: RecordStore, tenant: string, now: () => number) {
    this.#store = store;
    this.#tenant = tenant;
    this.#now = now;
    this.first = new Promise((resolve) => (this.#firstWritten = resolve));
  }

  /** Whether any step was written (then the call's answer is written as one too). */
  get used(): boolean {
    return this.#seq > 0;
  }

  async write(step: StepBody): Promise<void> {
    const seq = ++this.#seq;
    const key = stepKey(this.#tenant, this.id, seq);
    const written = { ...step, seq } as InputStep;
    await this.#store.put(key, { state: 'step', expires_at: this.#now() + 2 * REPLY_TTL_MS, data: written as unknown as JsonObject });
    wake(key);
    if (seq === 1) this.#firstWritten(written);
  }
}

/** Step `seq` of channel `channel`, once written; rejects when `until` passes (WaitEndedError) or `signal` aborts. */
export function awaitStep(store: RecordStore, tenant: string, channel: string, seq: number, options: { until: number; now: () => number; signal?: AbortSignal }): Promise<InputStep> {
  const key = stepKey(tenant, channel, seq);
  return waitFor(key, async () => (await store.get(key))?.data as unknown as InputStep | undefined, options);
}
