import { beforeAll, describe, expect, it } from 'vitest';
import { loadConditionEngine } from '../../lib/governance/conditions/condition.ts';
import { policyGovernor, type GovernanceRequest } from '../../lib/governance/policy.ts';
import type { PolicyRule } from '../../lib/governance/rules.ts';
import { defineTool } from '../../lib/registry/definition.ts';
import { loadManifest } from '../../lib/registry/manifest/loader.ts';
import { testGateway } from '../helpers/gateway.ts';
import { baseManifest, loaderOptions, validManifest } from '../helpers/manifests.ts';
import { startLocalIssuer } from '../support/local-issuer.ts';

const refundSchema = { type: 'object', properties: { amount: { type: 'number' }, currency: { type: 'string' }, count: { type: 'integer' }, tags: { type: 'array', items: { type: 'string' } } }, required: ['amount'] };
const writeSchema = { type: 'object', properties: { path: { type: 'string' }, content: { type: 'string' } }, required: ['path'] };
const tools = [
  { name: 'refund', tier: 'write', executor: { kind: 'builtin', name: 'echo' }, input_schema: refundSchema },
  { name: 'write_doc', tier: 'write', executor: { kind: 'builtin', name: 'echo' }, input_schema: writeSchema },
];

beforeAll(async () => { await loadConditionEngine(); });

const problemsOf = (rules: PolicyRule[]) => {
  const loaded = loadManifest(baseManifest({ policy: { write: 'grant', rules }, tools }), loaderOptions());
  return loaded.ok ? [] : loaded.problems;
};
const problemOf = (tool: string, condition: string) => problemsOf([{ tool, action: 'review', condition }]);

describe('conditions at publish', () => {
  it('typed conditions over args, tool, principal, claims and time publish', () => {
    expect(problemOf('refund', 'args.amount > 100.0 && args.currency == "EUR"')).toEqual([]);
    expect(problemOf('refund', 'args.amount > 100 && args.count == 2')).toEqual([]);
    expect(problemOf('write_doc', '!args.path.startsWith("docs/")')).toEqual([]);
    expect(problemOf('*', 'principal.claims.dept != "finance" && tool.startsWith("refund")')).toEqual([]);
    expect(problemOf('*', 'has(args.amount) && args.amount > 100.0')).toEqual([]);
    expect(problemOf('refund', 'now.getHours("Europe/Paris") >= 18 || "vip" in principal.claims.groups')).toEqual([]);
    expect(problemOf('write_doc', 'args.path.matches("^docs/[a-z]+\\\\.md$")')).toEqual([]);
  });

  it('an argument the tool does not have is a problem at the condition\'s JSON path, with the column', () => {
    expect(problemOf('refund', 'args.amout > 100.0')).toEqual([{ path: '$.policy.rules[0].condition', message: 'No such key: amout (at column 6)' }]);
  });

  it('refuses what is not a bool, mixes types, or names what a condition cannot see (another tenant, the environment)', () => {
    expect(problemOf('refund', 'args.amount')[0].message).toMatch(/is of type double; a condition must be true or false/);
    expect(problemOf('refund', 'args.amount == 100')[0].message).toMatch(/no such overload: double == int.*compare it with a number literal such as 100\.0/);
    expect(problemOf('refund', 'args.currency > 5')[0].message).toMatch(/no such overload/);
    for (const name of ['tenant', 'env', 'secrets', 'store', 'manifest']) expect(problemOf('refund', `${name}.acme != null`)[0].message).toMatch(new RegExp(`Unknown variable: ${name}`));
    expect(problemOf('refund', 'args.amount >')[0].path).toBe('$.policy.rules[0].condition');
    expect(problemOf('nonexistent', 'args.x == 1')[0].message).toMatch(/which this manifest does not have/);
  });

  it('refuses conditions that try to be expensive: comprehensions, joins, too many nodes, too long', () => {
    expect(problemOf('refund', 'args.tags.all(x, args.tags.exists(y, y == x))')[0].message).toMatch(/uses all\(\), which conditions may not/);
    expect(problemOf('refund', 'args.tags.exists(t, t == "a")')[0].message).toMatch(/uses exists\(\)/);
    expect(problemOf('refund', 'size(args.currency + args.currency + args.currency) > 3')[0].message).toMatch(/joins strings/);
    expect(problemOf('refund', 'size(args.tags + args.tags) > 3')[0].message).toMatch(/joins lists/);
    const wide = Array.from({ length: 40 }, (_, i) => `args.count == ${i}`).join(' || ');
    expect(problemOf('refund', wide)[0].message).toMatch(/(AST|nodes)/i);
    expect(problemOf('refund', `args.currency == "${'x'.repeat(1000)}"`)[0].path).toBe('$.policy.rules[0].condition');
  });

  it('string searches and joins with an argument from the call (their cost is one argument\'s size times the other\'s) are refused; short literals publish', () => {
    expect(problemOf('write_doc', 'args.content.contains(args.path)')[0]).toMatchObject({ path: '$.policy.rules[0].condition', message: expect.stringMatching(/contains\(\) takes the text to find as a literal of at most 64 characters/) });
    expect(problemOf('write_doc', 'args.content.indexOf(args.path) >= 0')[0].message).toMatch(/indexOf\(\) takes the text to find as a literal/);
    expect(problemOf('write_doc', 'args.content.lastIndexOf(args.path, 3) >= 0')[0].message).toMatch(/lastIndexOf\(\)/);
    expect(problemOf('write_doc', `args.content.contains("${'ab'.repeat(200)}")`)[0].message).toMatch(/at most 64 characters/);
    expect(problemOf('refund', 'size(args.tags.join(args.currency)) > 3')[0].message).toMatch(/join\(\) takes a separator as a literal/);
    expect(problemOf('write_doc', 'args.path.contains("/secrets/") || args.path.indexOf("..") >= 0')).toEqual([]);
    expect(problemOf('refund', 'args.tags.join(",") == "a,b" || args.tags.join() == "ab"')).toEqual([]);
  });

  it('a regex bomb is refused at publish; a pattern built from the call is refused too', () => {
    expect(problemOf('write_doc', 'args.path.matches("^(a+)+$")')[0].message).toMatch(/matches\(\) .*backtrack catastrophically/);
    expect(problemOf('write_doc', 'args.path.matches("(x|x)*y")')[0].message).toMatch(/backtrack catastrophically/);
    expect(problemOf('write_doc', 'args.path.matches(args.content)')[0].message).toMatch(/literal pattern/);
  });
});

/** A governor over these rules, deciding for `tool` with these arguments (validated: as the pipeline hands them over). */
function decide(rules: PolicyRule[], tool: string, args: Record<string, unknown>, extra: Partial<GovernanceRequest> = {}) {
  const schema = tool === 'refund' ? refundSchema : writeSchema;
  const governor = policyGovernor({ write: 'grant', rules });
  return governor.decide({ definition: defineTool({ name: tool, tier: 'write', input_schema: schema }), args: args as never, principal: 'alice', ...extra });
}

describe('conditions at dispatch', () => {
  const amountReview: PolicyRule[] = [{ tool: 'refund', condition: 'args.amount > 100.0', action: 'review', description: 'refunds over 100 need approval' }];

  it('an amount threshold parks only calls over it; integer arguments compare as CEL ints', async () => {
    expect(await decide(amountReview, 'refund', { amount: 150 })).toMatchObject({ action: 'review', reason: 'refunds over 100 need approval' });
    expect(await decide(amountReview, 'refund', { amount: 100 })).toMatchObject({ action: 'grant' });
    expect(await decide([{ tool: 'refund', condition: 'args.count == 3', action: 'deny' }], 'refund', { amount: 1, count: 3 })).toMatchObject({ action: 'deny' });
  });

  it('matches() runs on the linear-time matcher: a long value is judged, in Unicode mode', async () => {
    const rules: PolicyRule[] = [{ tool: 'write_doc', condition: 'args.path.matches("^docs/[a-z/]+\\\\.md$")', action: 'grant' }];
    const strict = policyGovernor({ write: 'review', rules });
    const request = (path: string) => ({ definition: defineTool({ name: 'write_doc', tier: 'write', input_schema: writeSchema }), args: { path }, principal: 'alice' });
    expect(await strict.decide(request('docs/guide.md'))).toMatchObject({ action: 'grant' });
    expect(await strict.decide(request(`docs/${'a/'.repeat(50_000)}x.txt`))).toMatchObject({ action: 'review' });
    expect(globalThis.RegExp.name).toBe('RegExp');
  });

  it('a path prefix: writes outside docs/ need approval', async () => {
    const rules: PolicyRule[] = [{ tool: 'write_doc', condition: '!args.path.startsWith("docs/")', action: 'review' }];
    expect(await decide(rules, 'write_doc', { path: 'docs/guide.md' })).toMatchObject({ action: 'grant' });
    expect(await decide(rules, 'write_doc', { path: 'src/index.ts' })).toMatchObject({ action: 'review' });
    expect(await decide(rules, 'write_doc', { path: 'docs/../src/index.ts' })).toMatchObject({ action: 'grant' }); // a prefix is text: pair it with the tool's own path confinement
  });

  it('a claim: only principals whose token says dept=finance are granted; others, and keys without claims, fall to the tier', async () => {
    const rules: PolicyRule[] = [{ tool: 'refund', condition: 'principal.claims.dept == "finance"', action: 'grant' }];
    const governor = (claims?: Record<string, unknown>) => decide(rules, 'refund', { amount: 5 }, claims ? { claims } : {});
    const strict = policyGovernor({ write: 'review', rules });
    const request = (claims?: Record<string, unknown>) => ({ definition: defineTool({ name: 'refund', tier: 'write', input_schema: refundSchema }), args: { amount: 5 }, principal: 'alice', ...(claims ? { claims } : {}) });
    expect(await strict.decide(request({ dept: 'finance' }))).toMatchObject({ action: 'grant' });
    expect(await strict.decide(request({ dept: 'sales' }))).toMatchObject({ action: 'review' });
    expect(await strict.decide(request())).toMatchObject({ action: 'review' }); // no claim: cannot be judged, never grants
    expect(await governor({ dept: 'finance' })).toMatchObject({ action: 'grant' });
  });

  it('time of day: now is the call\'s time', async () => {
    const rules: PolicyRule[] = [{ tool: 'refund', condition: 'now.getHours("UTC") >= 18', action: 'deny' }];
    expect(await decide(rules, 'refund', { amount: 1 }, { now: Date.UTC(2026, 0, 1, 19) })).toMatchObject({ action: 'deny' });
    expect(await decide(rules, 'refund', { amount: 1 }, { now: Date.UTC(2026, 0, 1, 9) })).toMatchObject({ action: 'grant' });
  });

  it('type confusion: a rule for "*" reads args as a map; a string where a number was expected cannot be judged, so a review applies and a grant does not', async () => {
    const review: PolicyRule[] = [{ tool: '*', condition: 'has(args.amount) && args.amount > 100.0', action: 'review' }];
    expect(await decide(review, 'refund', { amount: '1000' })).toMatchObject({ action: 'review' });
    expect(await decide(review, 'refund', { amount: 50 })).toMatchObject({ action: 'grant' });
    const grant: PolicyRule[] = [{ tool: '*', condition: 'args.amount < 10.0', action: 'grant' }];
    const strict = policyGovernor({ write: 'review', rules: grant });
    const request = (amount: unknown) => ({ definition: defineTool({ name: 'refund', tier: 'write', input_schema: refundSchema }), args: { amount } as never, principal: 'alice' });
    expect(await strict.decide(request('5'))).toMatchObject({ action: 'review' });
    expect(await strict.decide(request(5))).toMatchObject({ action: 'grant' });
    // An optional argument read without has(): absent, the review rule applies (fail closed).
    expect(await decide([{ tool: 'refund', condition: 'args.currency != "EUR"', action: 'review' }], 'refund', { amount: 1 })).toMatchObject({ action: 'review' });
  });

  it('a condition stored without the publish checks (a regex bomb, a quadratic comprehension) is never run: it cannot be judged', async () => {
    const bomb: PolicyRule[] = [{ tool: 'write_doc', condition: 'args.path.matches("^(a+)+$")', action: 'grant' }];
    expect(await decide(bomb, 'write_doc', { path: `${'a'.repeat(5000)}!` })).toMatchObject({ action: 'grant', reason: expect.stringMatching(/tier/) });
    const quadratic: PolicyRule[] = [{ tool: 'refund', condition: 'args.tags.all(x, args.tags.exists(y, y == x))', action: 'deny' }];
    expect(await decide(quadratic, 'refund', { amount: 1, tags: Array.from({ length: 20000 }, (_, i) => `t${i}`) })).toMatchObject({ action: 'deny' });
  });
});

describe('conditions over HTTP', () => {
  it('the amount threshold parks a refund over 100 and runs one under it', async () => {
    const manifest = validManifest({ tenant: 'acme', policy: { write: 'grant', rules: [{ tool: 'refund', condition: 'args.amount > 100.0', action: 'review' }] }, tools });
    const gw = await testGateway([manifest], { agent: { tenant: 'acme', principal: 'agent' } });
    const call = async (call_id: string, amount: number) => (await (await gw.request('/v1/dispatch', { key: 'agent', json: { thread_id: 'th', calls: [{ call_id, name: 'refund', arguments: { amount } }] } })).json()).results[0];
    expect((await call('small', 20)).status).toBe('ok');
    expect((await call('big', 250)).status).toBe('pending_approval');
  });

  it('a claim of a token from the tenant\'s identity provider: the finance department refunds without approval, others wait, over /v1/dispatch and /mcp', async () => {
    const audience = 'https://tools.example.com/mcp';
    const idp = await startLocalIssuer({ audience });
    try {
      const rules: PolicyRule[] = [{ tool: 'refund', condition: 'has(principal.claims.dept) && principal.claims.dept == "finance"', action: 'grant' }];
      const manifest = validManifest({ tenant: 'acme', policy: { write: 'review', rules }, tools, identity: { oidc: { issuer: idp.issuer, audience } } });
      const gw = await testGateway([manifest], {});
      const refund = async (token: string, call_id: string) => (await (await gw.request('/v1/dispatch', { key: token, headers: { 'x-toolgate-tenant': 'acme' }, json: { thread_id: 'claims', calls: [{ call_id, name: 'refund', arguments: { amount: 10 } }] } })).json()).results[0].status;
      expect(await refund(await idp.sign({ sub: 'fiona', dept: 'finance' }), 'f1')).toBe('ok');
      expect(await refund(await idp.sign({ sub: 'sam', dept: 'sales' }), 's1')).toBe('pending_approval');
      expect(await refund(await idp.sign({ sub: 'nobody' }), 'n1')).toBe('pending_approval');
      const viaMcp = await gw.request('/mcp/acme', {
        key: await idp.sign({ sub: 'fiona', dept: 'finance' }),
        json: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'refund', arguments: { amount: 10 } } },
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
      });
      expect((await viaMcp.json()).result).toMatchObject({ isError: false });
    } finally {
      await idp.close();
    }
  });
});
