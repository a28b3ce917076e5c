import { closeSync, fsync, fsyncSync, openSync } from 'node:fs';
import { resolve } from 'node:path';

/**
 * Makes committed SQLite transactions durable without blocking the event loop. In WAL mode with
 * `synchronous = NORMAL`, COMMIT writes the transaction's frames to the `-wal` file but does not
 * sync it (SQLite syncs the WAL only before a checkpoint), so a power loss could drop it. Here the
 * WAL is fsync'd on libuv's thread pool after each COMMIT, and the writers of that transaction are
 * answered once a sync that started after their COMMIT has finished: the durability of
 * `synchronous = FULL` (one sync per group commit), while the gateway keeps serving meanwhile.
 * One sync runs at a time; transactions that commit during it wait for the next, so under load
 * each sync covers many calls.
 */
export class WalSync {
  readonly #walPath: string;
  #fd: number | undefined;
  /** Settles the writers of transactions committed since the running sync started. */
  #waiting: Array<(error?: unknown) => void> = [];
  #running: Promise<void> | undefined;
  /** Called once the running sync ends with nothing more to sync (whenIdle). */
  #idle: Array<() => void> = [];
  #closed = false;

  constructor(databasePath: string) {
    this.#walPath = `${resolve(databasePath)}-wal`; // as SQLite names it, whatever the working directory becomes
  }

  /** Calls `settle` (with an error if the sync failed) once what is committed now is on disk. */
  afterCommit(settle: (error?: unknown) => void): void {
    if (this.#closed) return settle(this.#syncNow()); // a write that slipped in while the store closed
    this.#waiting.push(settle);
    if (!this.#running) this.#running = this.#syncLoop();
  }

  /**
   * Calls `settle` once every transaction committed so far is on disk: at once when none waits for
   * a sync, else after the next one. A read must not report what a power loss could still undo.
   */
  afterRead(settle: (error?: unknown) => void): void {
    if (this.#running) this.afterCommit(settle);
    else settle();
  }

  /**
   * Calls `run` now when no sync is running, else once the running sync (and any it chains) has
   * ended: writes asked for meanwhile can then be committed together, just before the next sync
   * starts, instead of in one transaction per turn that would wait for that next sync anyway.
   */
  whenIdle(run: () => void): void {
    if (!this.#running || this.#closed) return run();
    this.#idle.push(run);
  }

  /** Syncs what is still waiting, synchronously, and releases the file (the store is closing). */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#running;
    if (this.#waiting.length > 0) this.#settle(this.#waiting.splice(0), this.#syncNow());
    if (this.#fd !== undefined) closeSync(this.#fd);
    this.#fd = undefined;
  }

  async #syncLoop(): Promise<void> {
    while (this.#waiting.length > 0) {
      const batch = this.#waiting.splice(0);
      this.#settle(batch, await this.#sync());
    }
    this.#running = undefined;
    for (const run of this.#idle.splice(0)) run();
  }

  #settle(batch: Array<(error?: unknown) => void>, error: unknown): void {
    for (const settle of batch) settle(error);
  }

  #sync(): Promise<unknown> {
    let fd: number;
    try {
      fd = this.#open();
    } catch (error) {
      return Promise.resolve(error);
    }
    return new Promise((resolve) => fsync(fd, (error) => resolve(error ?? undefined)));
  }

  #syncNow(): unknown {
    try {
      fsyncSync(this.#open());
      return undefined;
    } catch (error) {
      return error;
    } finally {
      if (this.#closed && this.#fd !== undefined) closeSync(this.#fd);
      if (this.#closed) this.#fd = undefined;
    }
  }

  /** The WAL exists from the first write on (SQLite keeps it while a connection is open). */
  #open(): number {
    this.#fd ??= openSync(this.#walPath, 'r');
    return this.#fd;
  }
}
