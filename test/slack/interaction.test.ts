import { describe, expect, it } from 'vitest';
import { APPROVE_ACTION_ID, REJECT_ACTION_ID, parseSlackInteraction } from '../../lib/slack/interaction.ts';
import { blockActionsPayload, signedInteraction } from '../support/fake-slack.ts';

const form = (payload: unknown) => new URLSearchParams({ payload: typeof payload === 'string' ? payload : JSON.stringify(payload) }).toString();

describe('parseSlackInteraction', () => {
  it('reads a block_actions click on Approve and on Reject', async () => {
    const { body } = await signedInteraction({ signingSecret: 's', payload: blockActionsPayload({ decision: 'approve', approvalId: 'apr_123', channel: 'C42', messageTs: '1700000000.000200' }) });
    expect(parseSlackInteraction(body)).toEqual({
      ok: true,
      interaction: {
        type: 'block_actions',
        user: { id: 'U2CERLKJA', name: 'roadrunner' },
        action: { action_id: APPROVE_ACTION_ID, value: 'apr_123' },
        channel: 'C42',
        message_ts: '1700000000.000200',
        response_url: 'https://hooks.slack.com/actions/T1DC2JH3J/1700000000000200/fake',
      },
    });
    const reject = parseSlackInteraction(form(blockActionsPayload({ decision: 'reject', approvalId: 'apr_9' })));
    expect(reject).toMatchObject({ ok: true, interaction: { action: { action_id: REJECT_ACTION_ID, value: 'apr_9' } } });
  });

  it('takes what it needs from a minimal payload and falls back to container and message fields', () => {
    const minimal = { type: 'block_actions', user: { id: 'U1' }, actions: [{ action_id: 'toolgate_reject', value: 'apr_1' }] };
    expect(parseSlackInteraction(form(minimal))).toEqual({ ok: true, interaction: { type: 'block_actions', user: { id: 'U1' }, action: { action_id: 'toolgate_reject', value: 'apr_1' } } });
    const viaContainer = { ...minimal, user: { id: 'U1', name: 'home-tab-name' }, container: { channel_id: 'C9' }, message: { ts: '1.2' } };
    expect(parseSlackInteraction(form(viaContainer))).toMatchObject({ ok: true, interaction: { user: { id: 'U1', name: 'home-tab-name' }, channel: 'C9', message_ts: '1.2' } });
  });

  it.each([
    ['an empty body', '', /no "payload" form field/],
    ['a JSON body instead of a form', '{"type":"block_actions"}', /no "payload" form field/],
    ['a payload that is not JSON', 'payload=%7Bnot-json', /not JSON/],
    ['a payload that is an array', form([1, 2]), /not a JSON object/],
    ['a view_submission', form({ type: 'view_submission', user: { id: 'U1' } }), /"view_submission" is not handled/],
    ['a payload without a type', form({ user: { id: 'U1' } }), /null is not handled/],
    ['no user', form({ type: 'block_actions', actions: [{ action_id: 'toolgate_approve', value: 'a' }] }), /no user\.id/],
    ['a user id that is not text', form({ type: 'block_actions', user: { id: 7 }, actions: [] }), /no user\.id/],
    ['no actions', form({ type: 'block_actions', user: { id: 'U1' } }), /no actions/],
    ['an empty actions list', form({ type: 'block_actions', user: { id: 'U1' }, actions: [] }), /no actions/],
    ['an action that is not an object', form({ type: 'block_actions', user: { id: 'U1' }, actions: ['x'] }), /not an object/],
    ['somebody else\'s button', form({ type: 'block_actions', user: { id: 'U1' }, actions: [{ action_id: 'other_app', value: 'a' }] }), /"other_app" is not a toolgate approval button/],
    ['a button without a value', form({ type: 'block_actions', user: { id: 'U1' }, actions: [{ action_id: 'toolgate_approve' }] }), /no value \(the approval id\)/],
    ['an empty value', form({ type: 'block_actions', user: { id: 'U1' }, actions: [{ action_id: 'toolgate_approve', value: '' }] }), /no value/],
  ])('answers a reason, not a throw, for %s', (_name, body, reason) => {
    const parsed = parseSlackInteraction(body);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.reason).toMatch(reason);
  });
});
