import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Approval } from '../../lib/governance/approval.ts';
import { decideApproval, listApprovals, loadApproval, newApprovalId, saveNewApproval, withdrawApproval } from '../../lib/governance/approvals.ts';
import { listTasks, loadTask, markTaskCancelled, newTaskId, saveNewTask, type McpTask } from '../../lib/mcp/tasks/task-record.ts';
import { attachTwinTask, findTwin, forgetTwin, rememberTwin, twinKey } from '../../lib/mcp/twin-calls.ts';
import type { StateRecord, Store, StoredEnvelope, ThreadRef } from '../../lib/stores/store.ts';
import { createConnectLink, saveConsent, takeConnectLink, takeConsent } from '../../lib/connections/flow-records.ts';
import { GrantStore } from '../../lib/connections/grant-store.ts';
import { Keyring } from '../../lib/connections/keyring.ts';

/** A store under test, with a clock the suite controls (adapters compare expiry against it). */
export interface StoreFixture {
  store: Store;
  clock: { now: number };
  /** Stops whatever the fixture started (servers, files). */
  cleanup(): Promise<void>;
}

const HOUR = 3_600_000;

/**
 * The one contract every Store adapter passes unchanged: memory, sqlite, upstash, dynamodb.
 * `open` must build the adapter with `now: () => clock.now`.
 */
export function storeContract(name: string, open: () => Promise<StoreFixture>, options: { skip?: string } = {}) {
  describe.skipIf(options.skip !== undefined)(`Store contract: ${name}`, () => {
    let fixture: StoreFixture;
    let store: Store;
    let prefix = 0;
    const key = (k: string) => `contract/${Date.now()}-${prefix++}/${k}`;
    const record = (state: string, extra: Partial<StateRecord> = {}): StateRecord => ({ state, expires_at: fixture.clock.now + HOUR, data: { n: 1, nested: { list: [1, 'two', null], ü: 'ünïcode ✓' } }, ...extra });
    const envelope = (seq: number, prev: string | null, extra: Record<string, unknown> = {}): StoredEnvelope => ({ seq, prev_hash: prev, hash: `h${seq}-${Math.random().toString(36).slice(2)}`, type: 'tool.call.result', data: { output: 'ok ✓', seq }, ...extra });
    const thread = (): ThreadRef => ({ tenant: `tenant/${prefix++}`, thread_id: `thread:${Date.now()}:${prefix++}` });

    beforeAll(async () => {
      fixture = await open();
      store = fixture.store;
    }, 120_000);
    afterAll(async () => {
      await store?.close();
      await fixture?.cleanup();
    });

    describe('records', () => {
      it('claims an absent key once; a live record is returned to the loser', async () => {
        const k = key('claim');
        expect(await store.claim(k, record('in_progress', { owner: 'a' }))).toEqual({ claimed: true });
        const second = await store.claim(k, record('in_progress', { owner: 'b' }));
        expect(second.claimed).toBe(false);
        if (!second.claimed) expect(second.existing).toMatchObject({ state: 'in_progress', owner: 'a', data: { nested: { ü: 'ünïcode ✓' } } });
        expect(await store.get(k)).toMatchObject({ owner: 'a' });
      });

      it('lets an expired record or an abandoned lease be claimed again', async () => {
        const expired = key('expired');
        await store.put(expired, record('completed', { expires_at: fixture.clock.now - 1 }));
        expect(await store.get(expired)).toBeUndefined();
        expect(await store.claim(expired, record('in_progress'))).toEqual({ claimed: true });

        const lease = key('lease');
        await store.claim(lease, record('in_progress', { owner: 'first', claimable_after: fixture.clock.now + 1000 }));
        expect((await store.claim(lease, record('in_progress', { owner: 'second' }))).claimed).toBe(false);
        fixture.clock.now += 2000;
        expect(await store.claim(lease, record('in_progress', { owner: 'second' }))).toEqual({ claimed: true });
        expect(await store.get(lease)).toMatchObject({ owner: 'second' });
      });

      it('never lets a record without claimable_after be taken over, even one that replaced a lease', async () => {
        // A side effect that started (crash safety): its record keeps the key however long it runs.
        const k = key('executing');
        await store.claim(k, record('in_progress', { owner: 'first', claimable_after: fixture.clock.now + 1000 }));
        expect(await store.transition(k, { state: 'in_progress', owner: 'first' }, record('executing', { owner: 'first' }))).toEqual({ ok: true });
        fixture.clock.now += 2000;
        const retry = await store.claim(k, record('in_progress', { owner: 'second', claimable_after: fixture.clock.now + 1000 }));
        expect(retry.claimed).toBe(false);
        if (!retry.claimed) expect(retry.existing).toMatchObject({ state: 'executing', owner: 'first' });
        expect((await store.get(k))?.claimable_after).toBeUndefined();
      });

      it('exactly one of 50 concurrent claims wins', async () => {
        const k = key('race');
        const outcomes = await Promise.all(Array.from({ length: 50 }, (_, i) => store.claim(k, record('in_progress', { owner: `o${i}` }))));
        expect(outcomes.filter((o) => o.claimed)).toHaveLength(1);
      });

      it('transitions only from the expected state and owner', async () => {
        const k = key('cas');
        await store.put(k, record('pending', { owner: 'me' }));
        const wrongState = await store.transition(k, { state: 'approved' }, record('executed'));
        expect(wrongState.ok).toBe(false);
        if (!wrongState.ok) expect(wrongState.current?.state).toBe('pending');
        expect((await store.transition(k, { state: 'pending', owner: 'you' }, record('approved'))).ok).toBe(false);
        expect(await store.transition(k, { state: ['approved', 'pending'], owner: 'me' }, record('approved', { data: { by: 'ada' } }))).toEqual({ ok: true });
        expect(await store.get(k)).toMatchObject({ state: 'approved', data: { by: 'ada' } });
        expect(await store.transition(key('missing'), { state: 'pending' }, record('x'))).toEqual({ ok: false, current: undefined });
      });

      it('exactly one of racing transitions from the same state wins', async () => {
        const k = key('decide');
        await store.put(k, record('pending'));
        const outcomes = await Promise.all(['approved', 'rejected', 'approved', 'rejected', 'approved'].map((s) => store.transition(k, { state: 'pending' }, record(s))));
        expect(outcomes.filter((o) => o.ok)).toHaveLength(1);
      });

      it('does not transition an expired record', async () => {
        const k = key('stale');
        await store.put(k, record('pending', { expires_at: fixture.clock.now + 100 }));
        fixture.clock.now += 200;
        expect((await store.transition(k, { state: 'pending' }, record('approved'))).ok).toBe(false);
      });

      it('removes only on a matching state and owner; records without expiry live forever', async () => {
        const k = key('remove');
        await store.put(k, record('in_progress', { owner: 'me', expires_at: 0 }));
        fixture.clock.now += 365 * 24 * HOUR;
        expect(await store.get(k)).toMatchObject({ expires_at: 0 });
        expect(await store.remove(k, { state: 'in_progress', owner: 'other' })).toBe(false);
        expect(await store.remove(k, { state: 'in_progress', owner: 'me' })).toBe(true);
        expect(await store.get(k)).toBeUndefined();
        expect(await store.remove(k, { state: 'in_progress' })).toBe(false);
      });
    });

    describe('audit chains', () => {
      it('starts empty, appends on the expected head, and refuses a stale head', async () => {
        const t = thread();
        expect(await store.readAuditHead(t)).toBeNull();
        const first = [envelope(1, null), envelope(2, 'x')];
        const appended = await store.commit({ append: { thread: t, expected: null, envelopes: first } });
        expect(appended.append).toEqual({ ok: true, head: { seq: 2, hash: first[1].hash } });
        expect(await store.readAuditHead(t)).toEqual({ seq: 2, hash: first[1].hash });
        const stale = await store.commit({ append: { thread: t, expected: null, envelopes: [envelope(1, null)] } });
        expect(stale.append).toEqual({ ok: false, head: { seq: 2, hash: first[1].hash } });
        const wrongHash = await store.commit({ append: { thread: t, expected: { seq: 2, hash: 'nope' }, envelopes: [envelope(3, 'nope')] } });
        expect(wrongHash.append?.ok).toBe(false);
        expect((await store.listAudit(t, { limit: 10 })).envelopes).toEqual(first);
      });

      it('keeps threads and tenants apart', async () => {
        const a = thread();
        const b = { tenant: `${a.tenant}-other`, thread_id: a.thread_id };
        await store.commit({ append: { thread: a, expected: null, envelopes: [envelope(1, null)] } });
        expect(await store.readAuditHead(b)).toBeNull();
        expect((await store.listAudit(b, { limit: 10 })).envelopes).toEqual([]);
      });

      it('pages in seq order with after_seq', async () => {
        const t = thread();
        const all = Array.from({ length: 7 }, (_, i) => envelope(i + 1, i === 0 ? null : `p${i}`));
        await store.commit({ append: { thread: t, expected: null, envelopes: all.slice(0, 3) } });
        await store.commit({ append: { thread: t, expected: { seq: 3, hash: all[2].hash }, envelopes: all.slice(3) } });
        const page1 = await store.listAudit(t, { limit: 3 });
        expect(page1.envelopes.map((e) => e.seq)).toEqual([1, 2, 3]);
        expect(page1.next_after_seq).toBe(3);
        const page3 = await store.listAudit(t, { limit: 3, after_seq: 6 });
        expect(page3.envelopes).toEqual([all[6]]);
        expect(page3.next_after_seq).toBeUndefined();
        const exact = await store.listAudit(t, { limit: 4, after_seq: 3 });
        expect(exact.envelopes.map((e) => e.seq)).toEqual([4, 5, 6, 7]);
        expect(exact.next_after_seq).toBeUndefined();
      });

      it('exactly one of 20 racing appends on the same head wins', async () => {
        const t = thread();
        const outcomes = await Promise.all(Array.from({ length: 20 }, () => store.commit({ append: { thread: t, expected: null, envelopes: [envelope(1, null)] } })));
        expect(outcomes.filter((o) => o.append?.ok)).toHaveLength(1);
        expect((await store.listAudit(t, { limit: 50 })).envelopes).toHaveLength(1);
      });
    });

    describe('claimWithHead and commit', () => {
      it('claims and reads the head together', async () => {
        const t = thread();
        const e = envelope(1, null);
        await store.commit({ append: { thread: t, expected: null, envelopes: [e] } });
        const k = key('cwh');
        expect(await store.claimWithHead(k, record('in_progress', { owner: 'a' }), t)).toEqual({ claim: { claimed: true }, head: { seq: 1, hash: e.hash } });
        const again = await store.claimWithHead(k, record('in_progress', { owner: 'b' }), t);
        expect(again.claim.claimed).toBe(false);
      });

      it('applies a record change and an append together, each on its own condition', async () => {
        const t = thread();
        const k = key('commit');
        await store.put(k, record('in_progress', { owner: 'me' }));
        const both = await store.commit({ record: { key: k, expect: { state: 'in_progress', owner: 'me' }, next: record('completed', { owner: 'me' }) }, append: { thread: t, expected: null, envelopes: [envelope(1, null)] } });
        expect(both.record).toEqual({ ok: true });
        expect(both.append?.ok).toBe(true);
        expect(await store.get(k)).toMatchObject({ state: 'completed' });

        const staleHead = await store.commit({ record: { key: k, expect: { state: 'completed' }, next: record('archived') }, append: { thread: t, expected: null, envelopes: [envelope(1, null)] } });
        expect(staleHead.record).toEqual({ ok: true });
        expect(staleHead.append?.ok).toBe(false);
        expect(await store.get(k)).toMatchObject({ state: 'archived' });

        const head = await store.readAuditHead(t);
        const wrongState = await store.commit({ record: { key: k, expect: { state: 'pending' }, next: record('x') }, append: { thread: t, expected: head, envelopes: [envelope(2, head!.hash)] } });
        expect(wrongState.record?.ok).toBe(false);
        expect(wrongState.append?.ok).toBe(true);
        expect((await store.readAuditHead(t))?.seq).toBe(2);
      });

      it('deletes a record through commit when next is null', async () => {
        const k = key('release');
        await store.put(k, record('in_progress', { owner: 'me' }));
        expect((await store.commit({ record: { key: k, expect: { state: 'in_progress', owner: 'other' }, next: null } })).record?.ok).toBe(false);
        expect((await store.commit({ record: { key: k, expect: { state: 'in_progress', owner: 'me' }, next: null } })).record).toEqual({ ok: true });
        expect(await store.get(k)).toBeUndefined();
      });
    });

    describe('indexes', () => {
      it('lists members by score, re-scores, and pages with after_score', async () => {
        const index = key('index');
        await store.addToIndex(index, 'b', 20);
        await store.addToIndex(index, 'a', 10);
        await store.addToIndex(index, 'c/ü', 30);
        await store.addToIndex(index, 'a', 25);
        expect(await store.listIndex(index, { limit: 10 })).toEqual([{ member: 'b', score: 20 }, { member: 'a', score: 25 }, { member: 'c/ü', score: 30 }]);
        expect(await store.listIndex(index, { limit: 1, after_score: 20 })).toEqual([{ member: 'a', score: 25 }]);
        expect(await store.listIndex(key('empty'), { limit: 10 })).toEqual([]);
      });

      it('removes a member (re-scored or not); removing an absent one changes nothing; it can come back', async () => {
        const index = key('remove');
        await store.addToIndex(index, 'a', 10);
        await store.addToIndex(index, 'b', 20);
        await store.addToIndex(index, 'b', 5);
        await store.addToIndex(index, 'c/ü', 30);
        await store.removeFromIndex(index, 'b');
        await store.removeFromIndex(index, 'missing');
        await store.removeFromIndex(key('no-such-index'), 'a');
        expect(await store.listIndex(index, { limit: 10 })).toEqual([{ member: 'a', score: 10 }, { member: 'c/ü', score: 30 }]);
        await store.removeFromIndex(index, 'c/ü');
        await store.addToIndex(index, 'b', 40);
        expect(await store.listIndex(index, { limit: 10 })).toEqual([{ member: 'a', score: 10 }, { member: 'b', score: 40 }]);
      });

      it('concurrent removals and re-scorings of one member leave it listed at most once', async () => {
        const index = key('remove-race');
        await store.addToIndex(index, 'm', 1);
        await Promise.all([store.removeFromIndex(index, 'm'), store.addToIndex(index, 'm', 2), store.removeFromIndex(index, 'm'), store.addToIndex(index, 'm', 3)]);
        const listed = await store.listIndex(index, { limit: 10 });
        expect(listed.length).toBeLessThanOrEqual(1);
      });

      // The attack was GET /v1/approvals?limit=-1: SQLite read LIMIT -1 as "all", Upstash answered
      // nothing, and listApprovals paged on forever waiting for a short page, at 100% CPU.
      it('refuses a page limit that is not a whole number of at least 1, and listApprovals does not loop on one', async () => {
        const index = key('limits');
        await store.addToIndex(index, 'a', 1);
        const t = thread();
        await store.commit({ append: { thread: t, expected: null, envelopes: [envelope(1, null)] } });
        for (const limit of [-1, 0, 0.5, Number.NaN, Number.POSITIVE_INFINITY]) {
          await expect(store.listIndex(index, { limit }), `listIndex limit ${limit}`).rejects.toThrow(RangeError);
          await expect(store.listAudit(t, { limit }), `listAudit limit ${limit}`).rejects.toThrow(/page limit must be a whole number of at least 1/);
          await expect(listApprovals(store, t.tenant, { limit }), `listApprovals limit ${limit}`).rejects.toThrow(RangeError);
        }
        expect(await store.listIndex(index, { limit: 1 })).toEqual([{ member: 'a', score: 1 }]);
      });
    });

    describe('approvals', () => {
      it('an approval bound to its tool definition (version, hash, target) round-trips: saved, listed, decided', async () => {
        const tenant = `tenant-${prefix++}`;
        const id = newApprovalId();
        const target = { kind: 'http', summary: 'POST https://tools.example.com/tv?api_key=•••••• (headers: X-Hook-Token)', url: 'https://tools.example.com/tv?api_key=••••••' };
        const approval: Approval = {
          id, tenant, thread_id: 'th', call_id: 'c1', tool: 'tv', tier: 'write', call_key: key('call'), arguments: { channel: 3, name: 'ünïcode ✓' }, args_hash: 'a'.repeat(64),
          requested_by: 'agent', reason: 'write tools need review', manifest_version: 'q3', definition_hash: 'd'.repeat(64), target,
          created_at: new Date(fixture.clock.now).toISOString(), expires_at: new Date(fixture.clock.now + HOUR).toISOString(), state: 'pending', quorum: 1, decisions: [],
        };
        await saveNewApproval(store, approval);
        const bound = { manifest_version: 'q3', definition_hash: 'd'.repeat(64), target };
        expect(await loadApproval(store, id, fixture.clock.now)).toMatchObject(bound);
        expect((await listApprovals(store, tenant, { limit: 10 })).approvals).toMatchObject([bound]);
        const decided = await decideApproval(store, id, { decision: 'approve', by: 'alice', via: 'api' }, fixture.clock.now);
        expect(decided).toMatchObject({ ok: true, approval: { state: 'approved', ...bound } });
        expect(await loadApproval(store, id, fixture.clock.now)).toMatchObject({ state: 'approved', ...bound });
      });

      it('a withdrawal racing a decision: exactly one ends the approval; only the requester may withdraw', async () => {
        const approval = (): Approval => ({
          id: newApprovalId(), tenant: `tenant-${prefix++}`, thread_id: 'th', call_id: 'c1', tool: 'tv', tier: 'write', call_key: key('call'), arguments: {}, args_hash: 'a'.repeat(64),
          requested_by: 'agent', reason: 'review', created_at: new Date(fixture.clock.now).toISOString(), expires_at: new Date(fixture.clock.now + HOUR).toISOString(), state: 'pending', quorum: 1, decisions: [],
        });
        const foreign = approval();
        await saveNewApproval(store, foreign);
        expect(await withdrawApproval(store, foreign.id, 'mallory', 'mcp', fixture.clock.now)).toMatchObject({ ok: false, reason: 'not_requester' });
        for (let i = 0; i < 3; i++) {
          const raced = approval();
          await saveNewApproval(store, raced);
          const [withdrawn, decided] = await Promise.all([withdrawApproval(store, raced.id, 'agent', 'mcp', fixture.clock.now), decideApproval(store, raced.id, { decision: 'approve', by: 'alice', via: 'api' }, fixture.clock.now)]);
          expect([withdrawn.ok, decided.ok].filter(Boolean)).toHaveLength(1);
          const final = await loadApproval(store, raced.id, fixture.clock.now);
          expect(final?.state).toBe(withdrawn.ok ? 'withdrawn' : 'approved');
          if (withdrawn.ok) expect(final).toMatchObject({ decided_by: 'agent', decided_via: 'mcp' });
        }
      });
    });

    describe('connection grants', () => {
      const KEY_A = `a:${Buffer.alloc(32, 1).toString('base64url')}`;
      const KEY_B = `b:${Buffer.alloc(32, 2).toString('base64url')}`;
      const tokens = { access_token: 'at-ünïcode-✓-secret', refresh_token: 'rt-secret' };
      const PROVIDER = '["https://idp.example","","","toolgate","",""]';
      const KEY_PROOF = { kind: 'key' } as const;

      it('a grant round-trips sealed: the stored record holds no token, and a copy under another principal does not open', async () => {
        const grants = new GrantStore(store, Keyring.parse(KEY_A));
        const alice = { tenant: `tenant/${prefix++}`, principal: 'alice ✓', connection: 'github' };
        const info = await grants.save(alice, PROVIDER, KEY_PROOF, tokens, { token_expires_at: fixture.clock.now + HOUR, scope: 'repo' }, fixture.clock.now);
        expect(await grants.load(alice, PROVIDER)).toMatchObject({ ...alice, tokens, refreshable: true, scope: 'repo', grant_id: info.grant_id, kid: 'a', stale: false });
        const raw = JSON.stringify(await store.get(`conn-grant/${encodeURIComponent(alice.tenant)}/${encodeURIComponent(alice.principal)}/github`));
        expect(raw).not.toContain('secret');
        // A tenant admin with store access copies Alice's record under Mallory's key: it does not open (AAD), so Mallory has no grant.
        const mallory = { ...alice, principal: 'mallory' };
        await store.put(`conn-grant/${encodeURIComponent(alice.tenant)}/mallory/github`, (await store.get(`conn-grant/${encodeURIComponent(alice.tenant)}/${encodeURIComponent(alice.principal)}/github`))!);
        expect(await grants.load(mallory, PROVIDER)).toBeUndefined();
        expect(await grants.load({ ...alice, connection: 'gitlab' }, PROVIDER)).toBeUndefined();
        // The record's proof rewritten (a key made it; a signed-in user's it now claims to be): it does not open (AAD).
        const record = (await store.get(`conn-grant/${encodeURIComponent(alice.tenant)}/${encodeURIComponent(alice.principal)}/github`))!;
        await store.put(`conn-grant/${encodeURIComponent(alice.tenant)}/${encodeURIComponent(alice.principal)}/github`, { ...record, data: { ...record.data, proof: { kind: 'token', issuer: 'https://idp.example', subject: 'alice' } } });
        expect(await grants.load(alice, PROVIDER)).toBeUndefined();
        // The manifest re-points the connection at another provider or client: the grant does not open there.
        expect(await grants.load(alice, PROVIDER.replace('idp.example', 'evil.example'))).toBeUndefined();
      });

      it('round-trips a signed-in user\'s proof with the grant: issuer, subject, audience and key set', async () => {
        const grants = new GrantStore(store, Keyring.parse(KEY_A));
        const bob = { tenant: `tenant/${prefix++}`, principal: 'bob', connection: 'github' };
        const signedIn = { kind: 'token' as const, issuer: 'https://idp.example/', subject: 'auth0|b0b', audience: 'https://gw.example', jwks_uri: 'https://idp.example/.well-known/jwks.json' };
        await grants.save(bob, PROVIDER, signedIn, tokens, {}, fixture.clock.now);
        expect((await grants.load(bob, PROVIDER))?.proof).toEqual(signedIn);
        expect((await grants.info(bob))?.proof).toEqual(signedIn);
        const { jwks_uri: _keys, ...discovered } = signedIn;
        await grants.save(bob, PROVIDER, discovered, tokens, {}, fixture.clock.now);
        expect((await grants.load(bob, PROVIDER))?.proof).toEqual(discovered);
      });

      it('opens grants sealed under an older key (stale) after rotation, and none once that key is gone', async () => {
        const owner = { tenant: `tenant/${prefix++}`, principal: 'alice', connection: 'google' };
        await new GrantStore(store, Keyring.parse(KEY_A)).save(owner, PROVIDER, KEY_PROOF, { access_token: 'old' }, {}, fixture.clock.now);
        const rotated = new GrantStore(store, Keyring.parse(`${KEY_B},${KEY_A}`));
        expect(await rotated.load(owner, PROVIDER)).toMatchObject({ tokens: { access_token: 'old' }, stale: true, refreshable: false });
        await rotated.save(owner, PROVIDER, KEY_PROOF, { access_token: 'new' }, {}, fixture.clock.now);
        expect(await rotated.load(owner, PROVIDER)).toMatchObject({ tokens: { access_token: 'new' }, stale: false, kid: 'b' });
        await new GrantStore(store, Keyring.parse(KEY_A)).save(owner, PROVIDER, KEY_PROOF, { access_token: 'under a' }, {}, fixture.clock.now);
        expect(await new GrantStore(store, Keyring.parse(KEY_B)).load(owner, PROVIDER)).toBeUndefined();
      });

      it('lists a tenant\'s grants (or one principal\'s) without tokens; removes only the grant named', async () => {
        const grants = new GrantStore(store, Keyring.parse(KEY_A));
        const tenant = `tenant/${prefix++}`;
        const alice = { tenant, principal: 'alice', connection: 'github' };
        const bob = { tenant, principal: 'bob', connection: 'github' };
        const first = await grants.save(alice, PROVIDER, KEY_PROOF, tokens, {}, fixture.clock.now);
        await grants.save(bob, PROVIDER, KEY_PROOF, tokens, {}, fixture.clock.now + 1);
        await grants.save({ tenant: `${tenant}-other`, principal: 'carol', connection: 'github' }, PROVIDER, KEY_PROOF, tokens, {}, fixture.clock.now);
        const listed = await grants.list(tenant);
        expect(listed.map((g) => g.principal)).toEqual(['alice', 'bob']);
        expect(JSON.stringify(listed)).not.toContain('secret');
        expect((await grants.list(tenant, { principal: 'bob' })).map((g) => g.principal)).toEqual(['bob']);
        const second = await grants.save(alice, PROVIDER, KEY_PROOF, { access_token: 'renewed' }, {}, fixture.clock.now + 2);
        expect(await grants.remove(alice, first.grant_id)).toBe(false);
        expect(await grants.load(alice, PROVIDER)).toMatchObject({ tokens: { access_token: 'renewed' } });
        expect(await grants.remove(alice, second.grant_id)).toBe(true);
        expect(await grants.load(alice, PROVIDER)).toBeUndefined();
        expect((await grants.list(tenant)).map((g) => g.principal)).toEqual(['bob']);
      });

      it('a connect link and a consent are taken once, by one of concurrent takers, and not after they expire', async () => {
        const owner = { tenant: `tenant/${prefix++}`, principal: 'alice', connection: 'github', proof: { kind: 'token' as const, issuer: 'https://idp.example', subject: 'alice', audience: 'https://gw.example', jwks_uri: 'https://idp.example/jwks' } };
        const link = await createConnectLink(store, owner, fixture.clock.now);
        const takes = await Promise.all(Array.from({ length: 10 }, () => takeConnectLink(store, link)));
        expect(takes.filter((t) => t !== undefined)).toEqual([owner]);
        expect(await takeConnectLink(store, 'x'.repeat(43))).toBeUndefined();
        const late = await createConnectLink(store, owner, fixture.clock.now);
        fixture.clock.now += HOUR;
        expect(await takeConnectLink(store, late)).toBeUndefined();
        const state = 's'.repeat(43);
        await saveConsent(store, state, { ...owner, verifier: 'v', browser: 'b', redirect_uri: 'https://gw.example/connect/t/github/callback' }, fixture.clock.now);
        expect(await takeConsent(store, state)).toMatchObject({ ...owner, verifier: 'v' });
        expect(await takeConsent(store, state)).toBeUndefined();
      });
    });

    describe('MCP tasks and twin pointers', () => {
      const task = (owner: { tenant: string; principal: string }, extra: Partial<McpTask> = {}): McpTask => ({
        id: newTaskId(), ...owner, thread_id: 'mcp:agent', call_id: `mcp_${prefix++}`, tool: 'tv', approval_id: newApprovalId(), call_key: key('call'), created_at: new Date(fixture.clock.now).toISOString(), ttl_ms: HOUR, ...extra,
      });

      it('a task is found by its owner only (tenant and principal), listed for it alone, and reads cancelled once marked', async () => {
        const owner = { tenant: `tenant/${prefix++}`, principal: 'agent ✓' };
        const mine = task(owner, { result: { call_id: 'c', name: 'tv', status: 'ok', is_error: false, content: 'done ✓', truncated: false, duration_ms: 1 } });
        await saveNewTask(store, mine, fixture.clock.now);
        expect(await loadTask(store, owner, mine.id)).toEqual(mine);
        for (const stranger of [{ ...owner, principal: 'mallory' }, { ...owner, tenant: `${owner.tenant}-other` }]) expect(await loadTask(store, stranger, mine.id)).toBeUndefined();
        expect(await loadTask(store, owner, 'tgt_not-an-id')).toBeUndefined();
        await saveNewTask(store, task({ ...owner, principal: 'mallory' }), fixture.clock.now);
        expect((await listTasks(store, owner, { limit: 10 })).tasks.map((t) => t.id)).toEqual([mine.id]);
        const cancelled = await markTaskCancelled(store, mine, 'withdrawn', fixture.clock.now);
        expect(await loadTask(store, owner, mine.id)).toMatchObject({ cancelled_at: cancelled.cancelled_at, cancel_note: 'withdrawn' });
      });

      it('tasks list soonest to expire first, page on, and expired ones vanish (and leave the index as new ones are made)', async () => {
        const owner = { tenant: `tenant-${prefix++}`, principal: 'agent' };
        const short = task(owner, { ttl_ms: 1000 });
        const made = [short, task(owner, { ttl_ms: HOUR }), task(owner, { ttl_ms: 2 * HOUR }), task(owner, { ttl_ms: 3 * HOUR })];
        for (const t of made) await saveNewTask(store, t, fixture.clock.now);
        const first = await listTasks(store, owner, { limit: 2 });
        expect(first.tasks.map((t) => t.id)).toEqual([made[0].id, made[1].id]);
        const second = await listTasks(store, owner, { after: first.next, limit: 2 });
        expect(second.tasks.map((t) => t.id)).toEqual([made[2].id, made[3].id]);
        fixture.clock.now += 2000;
        expect(await loadTask(store, owner, short.id)).toBeUndefined();
        expect((await listTasks(store, owner, { limit: 10 })).tasks.map((t) => t.id)).toEqual(made.slice(1).map((t) => t.id));
        await saveNewTask(store, task(owner), fixture.clock.now);
        expect((await listTasks(store, owner, { limit: 10 })).tasks).toHaveLength(4);
      });

      it('a twin pointer is found until it expires, takes a task, and is deleted only by its own call id', async () => {
        const tenant = `tenant/${prefix++}`;
        const twin = await twinKey({ tenant, principal: 'agent', thread_id: 'mcp:agent', tool: 'tv', args: { channel: 3, name: 'ünïcode ✓' } });
        // The same arguments in another order are the same call.
        expect(await twinKey({ tenant, principal: 'agent', thread_id: 'mcp:agent', tool: 'tv', args: { name: 'ünïcode ✓', channel: 3 } })).toBe(twin);
        expect(await findTwin(store, twin)).toBeUndefined();
        await rememberTwin(store, twin, { call_id: 'mcp_a', approval_id: 'apr_1' }, fixture.clock.now + HOUR);
        expect(await findTwin(store, twin)).toEqual({ call_id: 'mcp_a', approval_id: 'apr_1' });
        await attachTwinTask(store, twin, { call_id: 'mcp_other', approval_id: 'apr_1', task_id: 'tgt_x' }, fixture.clock.now + HOUR);
        expect(await findTwin(store, twin)).toEqual({ call_id: 'mcp_a', approval_id: 'apr_1' });
        await attachTwinTask(store, twin, { call_id: 'mcp_a', approval_id: 'apr_1', task_id: 'tgt_x' }, fixture.clock.now + HOUR);
        expect(await findTwin(store, twin)).toEqual({ call_id: 'mcp_a', approval_id: 'apr_1', task_id: 'tgt_x' });
        await forgetTwin(store, twin, 'mcp_other');
        expect(await findTwin(store, twin)).toMatchObject({ call_id: 'mcp_a' });
        await forgetTwin(store, twin, 'mcp_a');
        expect(await findTwin(store, twin)).toBeUndefined();
        await rememberTwin(store, twin, { call_id: 'mcp_b', approval_id: 'apr_2' }, fixture.clock.now + 1000);
        fixture.clock.now += 2000;
        expect(await findTwin(store, twin)).toBeUndefined();
      });
    });
  });
}
