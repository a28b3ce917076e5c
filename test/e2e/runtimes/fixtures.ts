import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startExecServer } from '../../../lib/exec/server/exec-server.ts';
import { REPO_ROOT } from '../../helpers/processes.ts';
import { startFakeSlack, type FakeSlack } from '../../support/fake-slack.ts';

export const DEMO_KEY = 'tg_e2e_demo_key_0123456789abcdef';
/** The demo's operator key: reads the audit, signs in to the console, publishes manifests. */
export const DEMO_ADMIN_KEY = 'tg_e2e_demo_admin_key_0123456789ab';
export const SIGNING_SECRET = 'e2e-slack-signing-secret';
export const APPROVER = 'U0E2EALICE';
const EXEC_SECRET = 'e2e-exec-secret-0123456789abcdef0123456789abcdef';

/** What every runtime's scenarios share: the exec-server the coding tools reach, and a fake Slack. */
export interface ScenarioFixtures {
  slack: FakeSlack;
  /** The exec-server's root (the demo workspace). */
  workspace: string;
  /** Variables every runtime gets (plus its store's). */
  env: Record<string, string>;
  stop(): Promise<void>;
}

export async function startScenarioFixtures(): Promise<ScenarioFixtures> {
  const workspace = mkdtempSync(join(tmpdir(), 'toolgate-e2e-ws-'));
  cpSync(join(REPO_ROOT, 'examples/demo/workspace'), workspace, { recursive: true });
  const exec = await startExecServer({ root: workspace, secret: EXEC_SECRET, tenants: ['demo'], port: 0 });
  const slack = await startFakeSlack();
  return {
    slack,
    workspace,
    env: {
      TOOLGATE_DEMO_KEY: DEMO_KEY,
      TOOLGATE_DEMO_ADMIN_KEY: DEMO_ADMIN_KEY,
      TOOLGATE_DEMO_EXEC_URL: exec.url,
      // The demo manifest names its exec secret DEMO_EXEC_SECRET; the operator grants it to "demo"
      // and allows the loopback servers the scenarios reach (the exec-server).
      DEMO_EXEC_SECRET: EXEC_SECRET,
      TOOLGATE_TENANT_SECRETS: 'demo:DEMO_EXEC_SECRET',
      TOOLGATE_EGRESS_ALLOW: '127.0.0.1',
      SLACK_BOT_TOKEN: slack.token,
      SLACK_SIGNING_SECRET: SIGNING_SECRET,
      SLACK_API_URL: slack.url,
      TOOLGATE_DEMO_SLACK_CHANNEL: 'C0E2E',
      TOOLGATE_DEMO_SLACK_APPROVERS: APPROVER,
      TOOLGATE_MANIFEST_CACHE_MS: '200',
    },
    async stop() {
      await exec.close();
      await slack.close();
      rmSync(workspace, { recursive: true, force: true });
    },
  };
}

/** A gateway on one runtime, reached the way its clients reach it (HTTP, or Lambda events). */
export interface RuntimeTarget {
  fetch(request: Request): Promise<Response>;
  stop(): Promise<void>;
}
