/**
 * The gateway's own configuration and credentials (store, Slack, cloud, runtime), plus the
 * process's basic variables. A tenant's manifest can never resolve one of them, and the operator
 * cannot grant one: a tenant that could read SLACK_SIGNING_SECRET could forge another tenant's
 * approvals, one that could read UPSTASH_* or AWS_* could rewrite the store.
 */
const GATEWAY_PREFIXES = ['TOOLGATE_', 'SLACK_', 'UPSTASH_', 'AWS_', 'AMAZON_', 'LAMBDA_', 'OTEL_', 'CF_', 'CLOUDFLARE_', 'WRANGLER_', 'DENO_', 'NODE_', 'NPM_', '_'];
const GATEWAY_NAMES = new Set(['PATH', 'HOME', 'USER', 'LOGNAME', 'SHELL', 'PWD', 'HOSTNAME', 'HOST', 'PORT', 'LANG', 'TZ', 'TMPDIR']);

/** Whether NAME is one of the gateway's own variables (compared case-insensitively: Windows' environment is). */
export function isGatewayVariable(name: string): boolean {
  const upper = name.toUpperCase();
  return GATEWAY_NAMES.has(upper) || GATEWAY_PREFIXES.some((prefix) => upper.startsWith(prefix));
}
