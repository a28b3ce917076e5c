import { existsSync, readdirSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CommandsAtOnce, defaultCommandsAtOnce } from '../../lib/exec/sandbox/commands-at-once.ts';
import { LocalExecutionEnvironment } from '../../lib/exec/local/local-environment.ts';
import { RemoteExecutionEnvironment } from '../../lib/exec/client/remote.ts';
import { startExecServer } from '../../lib/exec/server/exec-server.ts';
import { testGateway } from '../helpers/gateway.ts';
import { validManifest } from '../helpers/manifests.ts';
import { spawnNode } from '../helpers/processes.ts';
import { bubblewrapSandbox, execError, makeSandbox, unsandboxed, waitUntil, type Sandbox } from './helpers.ts';

const SECRET = 'commands-at-once-secret-0123456789abcdef01';
const MIB = 1024 * 1024;
const GIB = 1024 * MIB;

let sandbox: Sandbox;
beforeEach(async () => {
  sandbox = await makeSandbox();
});
afterEach(() => sandbox.cleanup());

/** Waits in the workspace until the test creates `release`, so commands overlap for as long as the test needs. */
const heldUntilReleased = (marker: string) => `touch ${marker}; while [ ! -e release ]; do sleep 0.05; done; echo done`;

describe('how many commands run at once by default', () => {
  it('as many as half the host memory holds at the per-call limit, from 1 to 8', () => {
    expect(defaultCommandsAtOnce(2 * GIB, 16 * GIB)).toBe(4);
    expect(defaultCommandsAtOnce(2 * GIB, 4 * GIB)).toBe(1);
    expect(defaultCommandsAtOnce(2 * GIB, 2 * GIB)).toBe(1);
    expect(defaultCommandsAtOnce(64 * MIB, 512 * GIB)).toBe(8);
  });
});

describe('attack: one dispatch of many parallel commands multiplies the per-call limits', () => {
  it('runs at most --max-commands at once; the rest are refused at once, nothing run, and say to retry', async () => {
    const logged: Array<{ event: string; fields: Record<string, unknown> }> = [];
    const commands = await bubblewrapSandbox({ maxCommands: 2 });
    const server = await startExecServer({ root: sandbox.root, secret: SECRET, tenants: ['acme'], port: 0, sandbox: commands, log: (event, fields) => logged.push({ event, fields }) });
    try {
      const manifest = validManifest({ tenant: 'acme', profile: 'openai', policy: { read: 'grant', write: 'grant', execute: 'grant' }, execution_environment: { url: server.url, secret: 'env:ACME_EXEC_SECRET' }, tools: [] });
      const gw = await testGateway([manifest], { k: { tenant: 'acme' } }, { env: { ACME_EXEC_SECRET: SECRET, TOOLGATE_TENANT_SECRETS: 'acme:ACME_EXEC_SECRET' } });
      const calls = [0, 1, 2, 3].map((i) => ({ call_id: `c${i}`, name: 'shell', arguments: { command: heldUntilReleased(`ran-${i}`) } }));
      const dispatched = gw.request('/v1/dispatch', { key: 'k', json: { thread_id: 'parallel', parallel: true, calls } });
      const refusals = () => logged.filter((entry) => entry.event === 'exec.rpc.completed' && entry.fields.outcome === 'unavailable').length;
      expect(await waitUntil(() => refusals() === 2, 20_000)).toBe(true);
      const health = (await (await fetch(`${server.url}/healthz`)).json()) as { commands_running: number; limits: Record<string, unknown> };
      expect(health.commands_running).toBe(2);
      expect(health.limits.commands_at_once).toEqual({ value: 2, enforced_by: 'the exec-server (more at once are refused, nothing run)' });
      await writeFile(join(sandbox.root, 'release'), '');
      const { results } = (await (await dispatched).json()) as { results: Array<{ call_id: string; status: string; content: string }> };
      const refused = results.filter((result) => result.status === 'unavailable');
      expect(results.filter((result) => result.status === 'ok')).toHaveLength(2);
      expect(refused).toHaveLength(2);
      for (const result of refused) expect(result.content).toMatch(/busy: it already runs 2 commands, as many as it runs at once, so this one was not run\. Retry it/);
      // Nothing of a refused command ran: only the two that ran left their marker.
      expect(readdirSync(sandbox.root).filter((name) => name.startsWith('ran-'))).toHaveLength(2);
      expect((await (await fetch(`${server.url}/healthz`)).json()).commands_running).toBe(0);
      const again = new RemoteExecutionEnvironment({ url: server.url, secret: SECRET, tenant: 'acme' });
      expect((await again.execCommand('echo free again')).stdout).toBe('free again\n');
    } finally {
      await server.close();
      await commands.close();
    }
  });

  it('caps --unsandboxed commands the same way', async () => {
    const environment = new LocalExecutionEnvironment(sandbox.root, { sandbox: new CommandsAtOnce(unsandboxed(), 1) });
    const first = environment.execCommand(heldUntilReleased('ran-first'));
    expect(await waitUntil(() => existsSync(join(sandbox.root, 'ran-first')), 10_000)).toBe(true);
    const error = await execError(environment.execCommand('touch ran-second'));
    expect(error.code).toBe('unavailable');
    expect(existsSync(join(sandbox.root, 'ran-second'))).toBe(false);
    await writeFile(join(sandbox.root, 'release'), '');
    expect((await first).stdout).toBe('done\n');
  });

  it('bounds the memory of all commands together (--limit-memory-total) where a memory cgroup is usable', async (context) => {
    const commands = await bubblewrapSandbox({ limits: { memory_bytes: 100 * MIB }, maxCommands: 3, memoryAllCommandsBytes: 150 * MIB });
    try {
      const limit = commands.report().limits.memory_bytes_all_commands;
      expect(limit?.value).toBe(150 * MIB);
      if (!limit?.enforced_by.startsWith('cgroup')) return context.skip(`no usable memory cgroup here: ${limit?.enforced_by}`);
      const environment = new LocalExecutionEnvironment(sandbox.root, { sandbox: commands });
      // tmpfs pages count against the writer's memory cgroup: 60 MiB held by each, 180 MiB in all.
      const hold = (name: string) => `head -c ${60 * MIB} /dev/zero > /dev/shm/fill && touch ${name} && while [ ! -e release ]; do sleep 0.05; done && echo held`;
      const running = [0, 1, 2].map((i) => environment.execCommand(hold(`held-${i}`)));
      // Long enough for all three to have written (or been stopped writing) their 60 MiB.
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      await writeFile(join(sandbox.root, 'release'), '');
      const results = await Promise.all(running);
      expect(results.filter((result) => result.stdout === 'held\n').length).toBeLessThan(3);
      const killed = results.filter((result) => result.exit_code !== 0);
      expect(killed.length).toBeGreaterThan(0);
      expect(killed[0].stderr).toContain('or all commands running at once together more than their 150 MiB');
      // Alone, the same command is well within its own limit.
      expect((await environment.execCommand(hold('alone'))).stdout).toBe('held\n');
    } finally {
      await commands.close();
    }
  });
});

describe('toolgate exec-server --max-commands and --limit-memory-total', () => {
  it('reports them on /healthz, and refuses bad values at start', async () => {
    const started = spawnNode(['bin/toolgate.js', 'exec-server', '--root', sandbox.root, '--port', '0', '--tenant', 'demo', '--max-commands', '3', '--limit-memory', '64', '--limit-memory-total', '100'], { env: { TOOLGATE_EXEC_SECRET: SECRET } });
    try {
      const [, url] = await started.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+)/);
      await started.waitFor(/^commands: /m);
      const health = (await (await fetch(`${url}/healthz`)).json()) as { limits: Record<string, { value: number }> };
      expect(health.limits.commands_at_once.value).toBe(3);
      expect(health.limits.memory_bytes_all_commands.value).toBe(100 * MIB);
      expect(started.output()).toMatch(/commands_at_once 3 \(the exec-server/);
    } finally {
      await started.stop();
    }
    for (const [args, message] of [
      [['--max-commands', '0'], '--max-commands must be a whole number of at least 1'],
      [['--limit-memory-total', 'lots'], '--limit-memory-total must be a whole number of MiB'],
      [['--limit-memory', '512', '--limit-memory-total', '256'], 'must be at least one command\'s (--limit-memory, 512 MiB), got 256 MiB'],
    ] as const) {
      const refused = spawnNode(['bin/toolgate.js', 'exec-server', '--root', sandbox.root, '--port', '0', '--tenant', 'demo', ...args], { env: { TOOLGATE_EXEC_SECRET: SECRET } });
      await new Promise((resolve) => refused.child.once('exit', resolve));
      expect(refused.child.exitCode, args.join(' ')).toBe(2);
      expect(refused.output()).toContain(message);
    }
  });
});
