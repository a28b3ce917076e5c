import { totalmem } from 'node:os';
import type { CommandRequest, CommandSandbox, SandboxReport, StartProcess } from './command-sandbox.ts';
import { ExecEnvironmentError, type ExecResult } from './environment.ts';
import { Slots } from './slots.ts';

/** The default never goes above this many commands at once, however much memory the host has. */
const MAX_DEFAULT_COMMANDS = 8;

/**
 * How many commands may run at once when the operator names no number (--max-commands): as many
 * as fit in half the host's memory at the per-call memory limit, at least 1 and at most 8. With
 * 2 GiB per call: 4 on a 16 GiB host, 1 on a 4 GiB one.
 */
export function defaultCommandsAtOnce(memoryBytesPerCall: number, hostMemoryBytes = totalmem()): number {
  return Math.max(1, Math.min(MAX_DEFAULT_COMMANDS, Math.floor(hostMemoryBytes / 2 / memoryBytesPerCall)));
}

/**
 * A cap on the commands one exec-server runs at once, whatever sandbox runs them. Every call's
 * limits hold only for that call, and one dispatch may carry 128 calls, so without a cap a batch
 * of parallel calls multiplies them. A command beyond the cap is refused at once, nothing run
 * (`unavailable`: the server is busy, retry), never queued: a queued command could start after
 * the gateway had told the model that it timed out.
 */
export class CommandsAtOnce implements CommandSandbox {
  readonly #inner: CommandSandbox;
  readonly #slots: Slots;

  constructor(inner: CommandSandbox, max: number) {
    this.#inner = inner;
    this.#slots = new Slots(max);
  }

  report(): SandboxReport {
    const report = this.#inner.report();
    const atOnce = { value: this.#slots.max, enforced_by: 'the exec-server (more at once are refused, nothing run)' };
    return { ...report, limits: { ...report.limits, commands_at_once: atOnce }, commands_running: this.#slots.taken };
  }

  async run(request: CommandRequest, start: StartProcess): Promise<ExecResult> {
    const release = this.#slots.tryTake();
    if (!release) {
      throw new ExecEnvironmentError(
        'unavailable',
        `the exec-server is busy: it already runs ${this.#slots.max} commands, as many as it runs at once, so this one was not run. ` +
          'Retry it when one of them has finished (or run fewer commands in parallel); its operator can raise the number with --max-commands',
      );
    }
    try {
      return await this.#inner.run(request, start);
    } finally {
      release();
    }
  }

  close(): Promise<void> {
    return this.#inner.close();
  }
}
