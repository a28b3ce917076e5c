import { describe, expect, it } from 'vitest';
import { diffManifests, oldToNew, shownValue } from '../../lib/registry/manifest/diff.ts';
import { baseManifest } from '../helpers/manifests.ts';

const lookup = (executor: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ name: 'lookup', tier: 'read', executor: { kind: 'http', ...executor }, ...extra });

describe('diffManifests: what changed, old → new', () => {
  it('walks objects down to the values that differ; arrays and absent keys are values of their own', () => {
    const from = baseManifest({ tools: [lookup({ url: 'https://a.example/x', secret: 'env:S' }, { tags: ['a'] })], policy: { read: 'grant', write: 'grant', execute: 'deny' } });
    const to = baseManifest({ version: '2', tools: [lookup({ url: 'https://b.example/x', secret: 'env:S' }, { tags: ['a', 'b'], timeout_ms: 500 })], policy: { read: 'grant', write: 'review', execute: 'deny' } });
    const diff = diffManifests(from, to);
    expect(diff.changed).toEqual([{
      name: 'lookup',
      fields: ['executor', 'tags', 'timeout_ms'],
      changes: [{ path: 'executor.url', from: 'https://a.example/x', to: 'https://b.example/x' }, { path: 'tags', from: ['a'], to: ['a', 'b'] }, { path: 'timeout_ms', to: 500 }],
    }]);
    expect(diff.settings).toEqual(['policy']);
    expect(diff.setting_changes).toEqual([{ path: 'policy.write', from: 'grant', to: 'review' }]);
    expect(diff.changed[0].changes.map(oldToNew)).toEqual(['"https://a.example/x" → "https://b.example/x"', '["a"] → ["a","b"]', '(none) → 500']);
  });

  it('shows a long value cut, never whole', () => {
    const shown = shownValue('x'.repeat(500));
    expect(shown).toHaveLength(120);
    expect(shown.endsWith('…')).toBe(true);
  });
});
