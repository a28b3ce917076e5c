import { existsSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';
import { docFiles, readDoc, ROOT } from '../../scripts/doc-blocks.ts';

// README.md and the guides link to one another by heading anchors; a moved or renamed heading must
// not leave a link that lands nowhere.

/** A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces as hyphens. */
const slug = (heading: string) => heading.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');

/** The lines of a markdown text outside its fenced code blocks. */
function prose(text: string): string[] {
  let fenced = false;
  return text.split('\n').filter((line) => {
    if (line.startsWith('```')) fenced = !fenced;
    return !fenced && !line.startsWith('```');
  });
}

function anchorsOf(file: string): Set<string> {
  const anchors = new Set<string>();
  for (const line of prose(readDoc(file))) {
    const heading = /^#+ (.*)$/.exec(line);
    if (!heading) continue;
    let anchor = slug(heading[1]);
    for (let n = 1; anchors.has(anchor); n++) anchor = `${slug(heading[1])}-${n}`;
    anchors.add(anchor);
  }
  return anchors;
}

/** Where each section heading of the README before the guides (main at 71ee664, and those main added until the merge) lives now. */
const FORMER_README_SECTIONS: Array<[string, string]> = [
  ["toolgate", "README.md"],
  ["Quick start", "README.md#install-and-start"],
  ["Coding tools, and a human in the loop", "README.md#a-five-minute-tour"],
  ["The same demo on workerd or Deno", "docs/deploy.md#the-same-demo-on-workerd-or-deno"],
  ["Deploy", "docs/deploy.md"],
  ["Cloudflare Workers (`functions/worker.ts`, `wrangler.toml`)", "docs/deploy.md#cloudflare-workers-functionsworkerts-wranglertoml"],
  ["AWS Lambda (`functions/lambda.ts`, `serverless.yml`)", "docs/deploy.md#aws-lambda-functionslambdats-serverlessyml"],
  ["Deno (`functions/deno.ts`)", "docs/deploy.md#deno-functionsdenots"],
  ["Node (`functions/node.ts`, `toolgate serve`)", "docs/deploy.md#node-functionsnodets-toolgate-serve"],
  ["A tenant's first manifest", "docs/manifests.md#a-tenants-first-manifest"],
  ["API keys", "docs/identity.md#api-keys"],
  ["Tests", "docs/development.md#tests"],
  ["Manifests", "docs/manifests.md#manifests"],
  ["Policy", "docs/manifests.md#policy"],
  ["Executors", "docs/manifests.md#executors"],
  ["The pipeline", "docs/http-api.md#the-pipeline"],
  ["Content parts", "docs/http-api.md#content-parts"],
  ["Idempotency", "docs/http-api.md#idempotency"],
  ["Deferred approvals", "docs/approvals.md#deferred-approvals"],
  ["Audit", "docs/operations.md#audit"],
  ["Stores", "docs/stores.md"],
  ["DynamoDB", "docs/stores.md#dynamodb"],
  ["Configuration", "docs/stores.md#configuration"],
  ["Item layout", "docs/stores.md#item-layout"],
  ["Expiry and TTL", "docs/stores.md#expiry-and-ttl"],
  ["Requests per operation", "docs/stores.md#requests-per-operation"],
  ["Failure", "docs/stores.md#failure"],
  ["Testing", "docs/stores.md#testing"],
  ["Coding tools and the execution environment", "docs/coding-tools.md"],
  ["Approvals in Slack", "docs/approvals.md#approvals-in-slack"],
  ["Console", "docs/approvals.md#console"],
  ["MCP", "docs/mcp.md"],
  ["toolgate as an MCP server", "docs/mcp.md#toolgate-as-an-mcp-server"],
  ["Sign in with your identity provider", "docs/identity.md#sign-in-with-your-identity-provider"],
  ["Tools from upstream MCP servers", "docs/mcp.md#tools-from-upstream-mcp-servers"],
  ["Tools run by the client, and tests", "docs/mcp.md#tools-run-by-the-client-and-tests"],
  ["Conformance", "docs/mcp.md#conformance"],
  ["Security", "docs/security.md"],
  ["Tenant secrets", "docs/security.md#tenant-secrets"],
  ["Egress", "docs/security.md#egress"],
  ["Exec RPC", "docs/security.md#exec-rpc"],
  ["Command sandbox", "docs/security.md#command-sandbox"],
  ["Shell grants", "docs/security.md#shell-grants"],
  ["Patterns", "docs/security.md#patterns"],
  ["Glob patterns", "docs/security.md#glob-patterns"],
  ["Inputs and origins", "docs/security.md#inputs-and-origins"],
  ["Crash safety", "docs/security.md#crash-safety"],
  ["HTTP API", "docs/http-api.md"],
  ["Provider formats", "docs/http-api.md#provider-formats"],
  ["Tool search for large catalogs", "docs/manifests.md#tool-search-for-large-catalogs"],
  ["The Responses API", "docs/http-api.md#the-responses-api"],
  ["Claude's native text editor and bash", "docs/http-api.md#claudes-native-text-editor-and-bash"],
  ["CLI", "docs/cli.md"],
  ["Logs and metrics", "docs/operations.md#logs-and-metrics"],
  ["Tracing with OpenTelemetry", "docs/operations.md#tracing-with-opentelemetry"],
  ["Library use", "docs/deploy.md#library-use"],
  ["Validation engines", "docs/manifests.md#validation-engines"],
  ["Layout", "docs/development.md#layout"],
  ["Conditions", "docs/manifests.md#conditions"],
  ["Limits", "docs/manifests.md#limits"],
];

describe('links between README.md and the guides', () => {
  it('every relative link reaches a file, and every anchor a heading of it', () => {
    const broken: string[] = [];
    for (const file of docFiles()) {
      for (const line of prose(readDoc(file))) {
        for (const [, target] of line.replace(/`[^`]*`/g, '').matchAll(/\]\(([^)\s]+)\)/g)) {
          if (/^[a-z]+:/.test(target)) continue;
          const [path, anchor] = target.split('#');
          const linked = path === '' ? file : normalize(join(dirname(file), path));
          if (!existsSync(join(ROOT, linked))) broken.push(`${file}: ${target} (no file ${linked})`);
          else if (anchor !== undefined && (!linked.endsWith('.md') || !anchorsOf(linked).has(anchor))) broken.push(`${file}: ${target} (no heading #${anchor} in ${linked})`);
        }
      }
    }
    expect(broken).toEqual([]);
  });

  it('every section of the former 2,365-line README landed in README.md or a guide', () => {
    const missing = FORMER_README_SECTIONS.filter(([, place]) => {
      const [file, anchor] = place.split('#');
      return !existsSync(join(ROOT, file)) || (anchor !== undefined && !anchorsOf(file).has(anchor));
    });
    expect(missing).toEqual([]);
  });

  it('README.md is a front door: at most 300 lines', () => {
    expect(readDoc('README.md').split('\n').length).toBeLessThanOrEqual(300);
  });
});
