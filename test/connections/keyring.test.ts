import { describe, expect, it } from 'vitest';
import { Keyring, KeyringError, SealError } from '../../lib/connections/keyring.ts';

const key = (byte: number) => Buffer.alloc(32, byte).toString('base64url');

describe('TOOLGATE_CONNECTION_KEYS', () => {
  it('is absent (no grants held) or names 32-byte keys with ids, each once', () => {
    expect(Keyring.fromEnv({})).toBeUndefined();
    expect(Keyring.fromEnv({ TOOLGATE_CONNECTION_KEYS: `2026-08:${key(1)}, 2026-01:${key(2)}` })?.currentKid).toBe('2026-08');
    expect(() => Keyring.parse(`k:${Buffer.alloc(16).toString('base64url')}`)).toThrow(/key "k" is not 32 bytes/);
    expect(() => Keyring.parse(key(1))).toThrow(KeyringError);
    expect(() => Keyring.parse(`a:${key(1)},a:${key(2)}`)).toThrow(/names a key id twice/);
    expect(() => Keyring.parse(' , ')).toThrow(/names no key/);
  });

  it('seals with a fresh IV each time, and refuses what was altered, re-addressed or sealed under an unknown key', async () => {
    const ring = Keyring.parse(`a:${key(1)}`);
    const one = await ring.seal('acme/alice/github', 'token');
    expect(one).toMatch(/^v1\.a\.[\w-]{16}\.[\w-]+$/);
    expect(await ring.seal('acme/alice/github', 'token')).not.toBe(one);
    expect(await ring.open('acme/alice/github', one)).toEqual({ plaintext: 'token', stale: false });
    await expect(ring.open('acme/bob/github', one)).rejects.toThrow(SealError);
    const flipped = one.slice(0, -2) + (one.endsWith('A') ? 'B' : 'A') + one.slice(-1);
    await expect(ring.open('acme/alice/github', flipped)).rejects.toThrow(SealError);
    await expect(Keyring.parse(`b:${key(1)}`).open('acme/alice/github', one)).rejects.toThrow(/key "a", which TOOLGATE_CONNECTION_KEYS no longer holds/);
    await expect(ring.open('acme/alice/github', 'v2.a.b.c')).rejects.toThrow(/not a sealed grant/);
  });
});
