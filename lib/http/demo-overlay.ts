import type { Manifest } from '../registry/manifest/manifest.ts';

type Env = Readonly<Record<string, string | undefined>>;

/**
 * Development settings for the bundled demo tenant, from the environment rather than the
 * manifest, so the same published manifest works on every machine: the exec-server URL
 * (TOOLGATE_DEMO_EXEC_URL) and Slack's channel and approvers (TOOLGATE_DEMO_SLACK_CHANNEL,
 * TOOLGATE_DEMO_SLACK_APPROVERS, comma-separated user ids). Applied when a runtime is built,
 * never stored.
 */
export function demoOverlay(env: Env, tenant = 'demo'): (manifest: Manifest) => Manifest {
  const execUrl = env.TOOLGATE_DEMO_EXEC_URL;
  const channel = env.TOOLGATE_DEMO_SLACK_CHANNEL;
  const approvers = env.TOOLGATE_DEMO_SLACK_APPROVERS?.split(',').map((s) => s.trim()).filter(Boolean);
  return (manifest) => {
    if (manifest.tenant !== tenant) return manifest;
    let out = manifest;
    if (execUrl && out.execution_environment) out = { ...out, execution_environment: { ...out.execution_environment, url: execUrl } };
    if (channel || approvers) out = { ...out, approvals: { ...out.approvals, ...(channel ? { slack_channel: channel } : {}), ...(approvers ? { approvers } : {}) } };
    return out;
  };
}
