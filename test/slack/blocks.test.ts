import { describe, expect, it } from 'vitest';
import type { Approval } from '../../lib/governance/approval.ts';
import { LIMITS, type Block } from '../../lib/slack/block-kit.ts';
import { approvalDecidedMessage, approvalRequestMessage } from '../../lib/slack/blocks.ts';
import { APPROVE_ACTION_ID, REJECT_ACTION_ID } from '../../lib/slack/interaction.ts';
import { MASK, sensitiveFieldNames } from '../../lib/slack/sensitive.ts';

const approval = (overrides: Partial<Approval> = {}): Approval => ({
  id: 'apr_01HZX',
  tenant: 'acme',
  thread_id: 'thread-7',
  call_id: 'call_1',
  call_key: 'idem/acme/thread-7/call_1',
  tool: 'deploy_service',
  tier: 'execute',
  arguments: { service: 'billing', env: 'prod', api_token: 'tok_live_123', nested: { password: 'hunter2', keep: 1 } },
  args_hash: 'sha256:abc',
  requested_by: 'agent-key-1',
  reason: 'execute tools need a human in prod',
  created_at: '2025-01-02T10:00:00.000Z',
  expires_at: '2025-01-02T11:00:00.000Z',
  state: 'pending',
  ...overrides,
});

/** Every text a message shows, joined: what a reader (or a leak) could see. */
const allText = (blocks: Block[]): string => JSON.stringify(blocks);
const texts = (blocks: Block[]): string[] =>
  blocks.flatMap((block) => {
    if (block.type === 'header') return [block.text.text];
    if (block.type === 'section') return [...(block.text ? [block.text.text] : []), ...(block.fields ?? []).map((field) => field.text)];
    if (block.type === 'context') return block.elements.map((element) => element.text);
    return [];
  });
const actionsOf = (blocks: Block[]) => blocks.filter((block) => block.type === 'actions');

describe('approvalRequestMessage', () => {
  it('lays out header, details, arguments, reason, id/expiry and the two buttons', () => {
    const message = approvalRequestMessage(approval());
    expect(message.blocks.map((block) => block.type)).toEqual(['header', 'section', 'section', 'section', 'context', 'actions']);
    expect(message.blocks[0]).toEqual({ type: 'header', text: { type: 'plain_text', text: 'Approval needed: deploy_service', emoji: true } });
    const fields = texts([message.blocks[1]]);
    expect(fields).toEqual(['*Tool*\n`deploy_service`', '*Tier*\nexecute', '*Requested by*\nagent-key-1', '*Tenant*\nacme', '*Thread*\n`thread-7`', '*Call*\n`call_1`']);
    expect(texts([message.blocks[2]])[0]).toMatch(/^\*Arguments\*\n```\n\{\n {2}"service": "billing",/);
    expect(texts([message.blocks[3]])[0]).toBe('*Why review*\nexecute tools need a human in prod');
    expect(texts([message.blocks[4]])[0]).toBe(
      'Approval `apr_01HZX` · requested <!date^1735812000^{date_short_pretty} {time}|2025-01-02 10:00 UTC> · expires <!date^1735815600^{date_short_pretty} {time}|2025-01-02 11:00 UTC>',
    );
    expect(message.text).toBe('Approval needed: deploy_service requested by agent-key-1');
  });

  it('has Approve (primary) and Reject (danger) buttons carrying the approval id', () => {
    const [actions] = actionsOf(approvalRequestMessage(approval()).blocks);
    expect(actions).toEqual({
      type: 'actions',
      block_id: 'toolgate_decision',
      elements: [
        { type: 'button', action_id: APPROVE_ACTION_ID, text: { type: 'plain_text', text: 'Approve', emoji: true }, value: 'apr_01HZX', style: 'primary' },
        { type: 'button', action_id: REJECT_ACTION_ID, text: { type: 'plain_text', text: 'Reject', emoji: true }, value: 'apr_01HZX', style: 'danger' },
      ],
    });
  });

  it('shows sensitive fields, at any depth, as a mask', () => {
    const message = approvalRequestMessage(approval(), { sensitiveFields: ['api_token', 'password'] });
    const shown = allText(message.blocks);
    expect(shown).not.toContain('tok_live_123');
    expect(shown).not.toContain('hunter2');
    expect(texts(message.blocks).join('\n')).toContain(`"api_token": "${MASK}"`);
    expect(texts(message.blocks).join('\n')).toContain(`"password": "${MASK}"`);
    expect(texts(message.blocks).join('\n')).toContain('"keep": 1');
    // Without the option nothing is hidden (the caller decides what is sensitive).
    expect(allText(approvalRequestMessage(approval()).blocks)).toContain('hunter2');
  });

  it('shows a pre-redacted copy of the arguments when given one', () => {
    const preview = { service: 'billing', env: 'prod', api_token: MASK, nested: { password: MASK, keep: 1 } };
    const message = approvalRequestMessage(approval(), { arguments: preview });
    expect(allText(message.blocks)).not.toMatch(/tok_live_123|hunter2/);
    expect(texts(message.blocks)[7]).toContain(`"api_token": "${MASK}"`);
  });

  it('takes the sensitive names from the tool schema with sensitiveFieldNames', () => {
    const schema = {
      type: 'object',
      properties: {
        api_token: { type: 'string', 'x-sensitive': true },
        nested: { type: 'object', properties: { password: { $ref: '#/$defs/secret' }, keep: { type: 'number' } } },
        list: { type: 'array', items: { type: 'object', properties: { pin: { type: 'string', 'x-sensitive': true } } } },
        either: { anyOf: [{ type: 'object', properties: { otp: { type: 'string', 'x-sensitive': true } } }, { type: 'string' }] },
        service: { type: 'string' },
      },
      $defs: { secret: { type: 'string', 'x-sensitive': true } },
    };
    expect(sensitiveFieldNames(schema).sort()).toEqual(['api_token', 'otp', 'password', 'pin']);
    expect(sensitiveFieldNames(true)).toEqual([]);
    const recursive = { $defs: { node: { type: 'object', properties: { child: { $ref: '#/$defs/node' }, key: { 'x-sensitive': true } } } }, $ref: '#/$defs/node' };
    expect(sensitiveFieldNames(recursive)).toEqual(['key']);
  });

  it('cuts long arguments with a note, at previewChars and always inside the section limit', () => {
    const long = approval({ arguments: { content: 'x'.repeat(5000) } });
    const preview = texts(approvalRequestMessage(long).blocks)[7];
    expect(preview).toMatch(/^\*Arguments\*\n```\n\{\n {2}"content": "x+\n```\n_Arguments truncated: the first 1,500 of 5,019 characters are shown\._$/);
    const short = texts(approvalRequestMessage(long, { previewChars: 100 }).blocks)[7];
    expect(short).toContain('the first 100 of 5,019 characters');
    // Ampersands escape to five characters each: the cut happens sooner, fences and note intact.
    const escapes = texts(approvalRequestMessage(approval({ arguments: { content: '&'.repeat(5000) } }), { previewChars: 10_000 }).blocks)[7];
    expect(escapes.length).toBeLessThanOrEqual(LIMITS.sectionText);
    expect(escapes).toMatch(/&amp;\n```\n_Arguments truncated: the first 572 of 5,019 characters are shown\._$/);
    expect(approvalRequestMessage(approval()).blocks.some((block) => JSON.stringify(block).includes('truncated'))).toBe(false);
  });

  it('escapes Slack control characters in user-provided text and keeps code blocks closed', () => {
    const hostile = approval({
      tool: 'evil<tool>',
      requested_by: '<!channel> & <@U999>',
      reason: 'click <https://evil.example|here>',
      arguments: { note: '<!here> ``` & done' },
      tenant: 'a&b',
    });
    const message = approvalRequestMessage(hostile);
    const shown = texts(message.blocks).join('\n');
    expect(shown).not.toMatch(/<!channel>|<!here>|<@U999>|<https:/);
    expect(shown).toContain('&lt;!channel&gt; &amp; &lt;@U999&gt;');
    expect(shown).toContain('click &lt;https://evil.example|here&gt;');
    expect(shown).toContain('*Tenant*\na&amp;b');
    expect(shown).toContain('"note": "&lt;!here&gt; `\u200b`` &amp; done"');
    expect(message.text).toBe('Approval needed: evil&lt;tool&gt; requested by &lt;!channel&gt; &amp; &lt;@U999&gt;');
    // The header is plain text: shown literally, nothing to escape.
    expect(message.blocks[0]).toMatchObject({ text: { type: 'plain_text', text: 'Approval needed: evil<tool>' } });
  });

  it('keeps every text inside Slack limits, cutting without breaking entities', () => {
    const huge = approval({ tool: 't'.repeat(400), requested_by: '&'.repeat(3000), reason: '<'.repeat(4000), thread_id: 'x'.repeat(2500) });
    for (const message of [approvalRequestMessage(huge), approvalDecidedMessage({ ...huge, state: 'rejected', decided_by: 'ops', decided_via: 'api', decision_reason: '>'.repeat(5000) })]) {
      for (const block of message.blocks) {
        if (block.type === 'header') expect(block.text.text.length).toBeLessThanOrEqual(LIMITS.headerText);
        if (block.type === 'section') {
          expect(block.text?.text.length ?? 0).toBeLessThanOrEqual(LIMITS.sectionText);
          for (const field of block.fields ?? []) expect(field.text.length).toBeLessThanOrEqual(LIMITS.fieldText);
        }
      }
      expect(message.text.length).toBeLessThanOrEqual(LIMITS.messageText);
      for (const text of texts(message.blocks)) expect(text).not.toMatch(/&(?:a|am|amp|l|lt|g|gt)?…/);
    }
  });
});

describe('what an approval runs', () => {
  it('the request and the decided message show the executor target and manifest version (secrets masked upstream)', () => {
    const target = { kind: 'http', summary: 'POST https://tools.example.com/tv?api_key=•••••• (headers: X-Token)', url: 'https://tools.example.com/tv?api_key=••••••' };
    const bound = approval({ manifest_version: 'q3', definition_hash: 'd'.repeat(64), target });
    for (const message of [approvalRequestMessage(bound), approvalDecidedMessage({ ...bound, state: 'rejected', decided_by: 'alice' }, { sensitiveFields: ['api_token', 'password'] })]) {
      const fields = texts(message.blocks).join('\n');
      expect(fields).toContain('*Manifest version*\nq3');
      expect(fields).toContain('*Runs*\n`POST https://tools.example.com/tv?api_key=•••••• (headers: X-Token)`');
    }
  });

  it('a target cannot inject mentions or links into the message', () => {
    const target = { kind: 'mcp', summary: 'MCP tool "<!channel>" on <https://evil.example|click> `x`' };
    const text = texts(approvalRequestMessage(approval({ target })).blocks).join('\n');
    expect(text).not.toContain('<!channel>');
    expect(text).not.toContain('<https://evil');
  });
});

describe('approvalDecidedMessage', () => {
  const decided = (overrides: Partial<Approval>) => approvalDecidedMessage(approval(overrides), { sensitiveFields: ['api_token', 'password'] });

  it('has no buttons, keeps the details and says who decided, when and why', () => {
    const message = decided({ state: 'rejected', decided_by: 'U2CERLKJA', decided_via: 'slack', decided_at: '2025-01-02T10:05:00.000Z', decision_reason: 'not during <freeze>' });
    expect(actionsOf(message.blocks)).toEqual([]);
    expect(message.blocks.map((block) => block.type)).toEqual(['header', 'section', 'section', 'section', 'section', 'section', 'context']);
    expect(message.blocks[0]).toMatchObject({ text: { text: 'Rejected: deploy_service' } });
    const shown = texts(message.blocks);
    expect(shown[1]).toBe('*Decision*\n:no_entry: Rejected by <@U2CERLKJA> in Slack on <!date^1735812300^{date_short_pretty} {time}|2025-01-02 10:05 UTC>.\n>not during &lt;freeze&gt;');
    expect(shown[2]).toBe('*Outcome*\nNot run: the call was rejected.');
    expect(shown).toContain('*Tool*\n`deploy_service`');
    expect(allText(message.blocks)).not.toContain('hunter2');
    expect(message.text).toBe('Rejected by <@U2CERLKJA>: deploy_service requested by agent-key-1');
  });

  it('names an API principal (escaped) instead of mentioning, and accepts slack:-prefixed user ids', () => {
    expect(texts(decided({ state: 'approved', decided_by: 'ops<admin>', decided_via: 'api' }).blocks)[1]).toBe('*Decision*\n:white_check_mark: Approved by ops&lt;admin&gt; via the API.');
    expect(texts(decided({ state: 'approved', decided_by: 'slack:U123ABC', decided_via: 'slack' }).blocks)[1]).toContain('Approved by <@U123ABC> in Slack');
    // Something that is not a user id never becomes a mention.
    expect(texts(decided({ state: 'approved', decided_by: '!channel', decided_via: 'slack' }).blocks)[1]).toContain('Approved by !channel in Slack');
  });

  it('shows the result status and an excerpt once executed', () => {
    const ok = decided({ state: 'executed', decided_by: 'U1AB', decided_via: 'slack', result: { status: 'ok', is_error: false, content: 'deployed <v2> & healthy' } });
    expect(ok.blocks[0]).toMatchObject({ text: { text: 'Approved and executed: deploy_service' } });
    expect(texts(ok.blocks)[2]).toBe('*Outcome*\nExecuted with status `ok`.\n```\ndeployed &lt;v2&gt; &amp; healthy\n```');
    const failed = decided({ state: 'executed', decided_by: 'U1AB', decided_via: 'slack', result: { status: 'timeout', is_error: true, content: 'y'.repeat(2000) } });
    expect(failed.blocks[0]).toMatchObject({ text: { text: 'Approved, failed: deploy_service' } });
    const outcome = texts(failed.blocks)[2];
    expect(outcome).toMatch(/^\*Outcome\*\nExecuted with status `timeout` \(error\)\.\n```\ny{499}…\n```\n_Output truncated \(2,000 characters in full\)\._$/);
  });

  it('leaves the arguments out (only their hash) unless told how to hide what is sensitive', () => {
    const bare = approvalDecidedMessage(approval({ state: 'rejected', decided_by: 'ops', decided_via: 'api' }));
    expect(allText(bare.blocks)).not.toMatch(/tok_live_123|hunter2|billing/);
    expect(texts(bare.blocks)).toContain('*Arguments*\nNot shown once decided (SHA-256 `sha256:abc`).');
    const preview = { service: 'billing', api_token: MASK };
    const shown = approvalDecidedMessage(approval({ state: 'rejected', decided_by: 'ops', decided_via: 'api' }), { arguments: preview });
    expect(allText(shown.blocks)).toContain('billing');
    expect(allText(shown.blocks)).not.toContain('tok_live_123');
  });

  it('says when nobody decided in time', () => {
    const message = decided({ state: 'expired' });
    expect(message.blocks[0]).toMatchObject({ text: { text: 'Expired: deploy_service' } });
    expect(texts(message.blocks)[1]).toBe('*Decision*\n:hourglass: Nobody decided before <!date^1735815600^{date_short_pretty} {time}|2025-01-02 11:00 UTC>.');
    expect(texts(message.blocks)[2]).toBe('*Outcome*\nNot run: the approval expired.');
    expect(message.text).toBe('Expired: deploy_service requested by agent-key-1');
    expect(actionsOf(message.blocks)).toEqual([]);
  });
});

describe('confusable names', () => {
  it('marks a requester and approvers whose names mix scripts or hide characters, spelling out the invisible ones', () => {
    const request = approvalRequestMessage(approval({ requested_by: 'b\u043eb' }));
    expect(texts(request.blocks).join('\n')).toContain('*Requested by*\nb\u043eb ⚠ mixes scripts');
    expect(request.text).toContain('requested by b\u043eb ⚠ mixes scripts');
    const decided = approvalDecidedMessage(approval({ state: 'approved', quorum: 2, decisions: [
      { decision: 'approve', by: 'al\u200dice', via: 'api', at: '2025-01-02T10:05:00.000Z' },
      { decision: 'approve', by: 'alice', via: 'api', at: '2025-01-02T10:06:00.000Z' },
    ], decided_by: 'alice', decided_via: 'api' }));
    const shown = texts(decided.blocks).join('\n');
    expect(shown).toContain('Approved by al⟨U+200D⟩ice ⚠ has invisible characters via the API');
    expect(shown).toContain('Approved by alice via the API');
  });
});

