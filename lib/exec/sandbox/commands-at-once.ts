import { totalmem } from 'node:os';
import type { CommandRequest, CommandSandbox, SandboxReport, StartProcess } from './command-sandbox.ts';
import { CommandShares, type NoSlot } from '../command-shares.ts';
import { ExecEnvironmentError, type ExecResult } from '../environment.ts';
import { KILL_GRACE_MS } from '../limits.ts';

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
 * A cap on the commands one exec-server runs at once, whatever sandbox runs them, shared fairly
 * between the tenants it serves (see CommandShares). Every call's limits hold only for that call,
 * and one dispatch may carry 128 calls, so without a cap a batch of parallel calls multiplies
 * them; without shares one tenant's long commands would leave none for the others. A command
 * beyond the cap or its tenant's share is refused at once, nothing run (`unavailable`: busy,
 * retry, with when a slot frees up at the latest), never queued: a queued command could start
 * after the gateway had told the model that it timed out.
 */
export class CommandsAtOnce implements CommandSandbox {
  readonly #inner: CommandSandbox;
  readonly #shares: CommandShares;
  readonly #tenants: number;

  /** `tenants`: those the exec-server serves (its --tenant list); none for a local environment. */
  constructor(inner: CommandSandbox, max: number, tenants: readonly string[] = []) {
    this.#inner = inner;
    this.#shares = new CommandShares(max, tenants);
    this.#tenants = new Set(tenants).size;
  }

  report(): SandboxReport {
    const report = this.#inner.report();
    const limits: SandboxReport['limits'] = { ...report.limits, commands_at_once: { value: this.#shares.max, enforced_by: 'the exec-server (more at once are refused, nothing run)' } };
    if (this.#tenants > 1) {
      const enforcedBy = `the exec-server: each of its ${this.#tenants} tenants is guaranteed this many at once, and gets more only while the others' guarantees stay free`;
      limits.commands_per_tenant = { value: this.#shares.guaranteed, enforced_by: enforcedBy };
    }
    return { ...report, limits, commands_running: this.#shares.taken };
  }

  async run(request: CommandRequest, start: StartProcess): Promise<ExecResult> {
    const tenant = request.tenant ?? '';
    const slot = this.#shares.tryTake(tenant, Date.now() + request.timeoutMs + KILL_GRACE_MS + END_MARGIN_MS);
    if (typeof slot !== 'function') throw new ExecEnvironmentError('unavailable', this.#busy(tenant, slot));
    try {
      return await this.#inner.run(request, start);
    } finally {
      slot();
    }
  }

  close(): Promise<void> {
    return this.#inner.close();
  }

  #busy(tenant: string, { reason, running, soonestEnd }: NoSlot): string {
    const wait = `the soonest of them ends within ${Math.max(1, Math.ceil((soonestEnd - Date.now()) / 1000))} s at the latest (${new Date(soonestEnd).toISOString()}, by its time limit)`;
    if (reason === 'full') {
      return (
        `the exec-server is busy: it already runs ${running} commands, as many as it runs at once, so this one was not run. ` +
        `Retry it when one of them has finished: ${wait}; or run fewer commands in parallel. Its operator can raise the number with --max-commands`
      );
    }
    return (
      `the exec-server is busy for tenant "${tenant}": it runs ${this.#shares.max} commands at once, shared between its ${this.#tenants} tenants, and already runs ${running} of this tenant's, its share, so this one was not run. ` +
      `Retry it when one of them has finished: ${wait}; or run fewer commands in parallel`
    );
  }
}

/** Beyond the kill grace: time for a killed command to be reaped and its output drained. */
const END_MARGIN_MS = 1_000;
