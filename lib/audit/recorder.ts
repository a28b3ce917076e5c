import type { Logger } from '../dispatch/events.ts';
import { threadKey, type AuditHead, type CommitRequest, type Store, type ThreadRef, type TransitionOutcome } from '../stores/store.ts';
import { chainEnvelopes, type EnvelopeDraft } from './envelope.ts';

const MAX_ATTEMPTS = 6;
const MAX_CACHED_HEADS = 10_000;

/**
 * Appends envelopes to a thread's hash chain. The chain head is remembered per isolate, so the
 * common case (an agent's calls landing on the same instance) needs no read: the append is
 * conditional on the head, and a stale head just costs a retry with the head the store returned.
 * Calls of one thread in this process are serialised so they do not race each other.
 */
export class AuditRecorder {
  readonly #store: Store;
  readonly #heads = new Map<string, AuditHead | null>();
  readonly #queues = new Map<string, Promise<unknown>>();

  constructor(store: Store, _log?: Logger) {
    this.#store = store;
  }

  /**
   * Chains `drafts` onto the thread and commits them together with an optional record change
   * (one round trip). `head` is a head the caller already read (from claimWithHead).
   * Returns the record change's outcome.
   */
  record(thread: ThreadRef, drafts: EnvelopeDraft[], options: { record?: CommitRequest['record']; head?: AuditHead | null } = {}): Promise<TransitionOutcome | undefined> {
    const key = threadKey(thread);
    const previous = this.#queues.get(key);
    // Nothing of this thread in flight here (the common case): the commit starts now, without a hop through a settled promise.
    const run = previous ? previous.catch(() => {}).then(() => this.#commit(key, thread, drafts, options)) : this.#commit(key, thread, drafts, options);
    this.#queues.set(key, run);
    void run.finally(() => {
      if (this.#queues.get(key) === run) this.#queues.delete(key);
    }).catch(() => {});
    return run;
  }

  async #commit(key: string, thread: ThreadRef, drafts: EnvelopeDraft[], options: { record?: CommitRequest['record']; head?: AuditHead | null }): Promise<TransitionOutcome | undefined> {
    let head = await this.#startingHead(key, thread, options.head);
    const now = new Date().toISOString();
    const stamped = drafts.map((draft) => ({ ...draft, id: crypto.randomUUID(), time: now }));
    let recordPart = options.record;
    let recordOutcome: TransitionOutcome | undefined;
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const envelopes = await chainEnvelopes(thread, head, stamped);
      const outcome = await this.#store.commit({ record: recordPart, append: { thread, expected: head, envelopes } });
      if (outcome.record) {
        recordOutcome = outcome.record;
        recordPart = undefined;
      }
      if (outcome.append?.ok) {
        this.#remember(key, outcome.append.head);
        return recordOutcome;
      }
      head = outcome.append?.head ?? null;
    }
    this.#heads.delete(key);
    throw new Error(`audit append for thread "${thread.thread_id}" lost the race ${MAX_ATTEMPTS} times`);
  }

  /** The newest head known: the caller's, this isolate's cache, or (neither known) the store's. */
  async #startingHead(key: string, thread: ThreadRef, given: AuditHead | null | undefined): Promise<AuditHead | null> {
    const cached = this.#heads.get(key);
    if (given !== undefined) return cached && (!given || cached.seq > given.seq) ? cached : given;
    if (this.#heads.has(key)) return cached ?? null;
    return this.#store.readAuditHead(thread);
  }

  #remember(key: string, head: AuditHead | null): void {
    if (this.#heads.size >= MAX_CACHED_HEADS) this.#heads.clear();
    this.#heads.set(key, head);
  }
}
