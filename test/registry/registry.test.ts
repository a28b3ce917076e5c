import { describe, expect, it } from 'vitest';
import { FnToolExecutor } from '../../lib/registry/executor.ts';
import { DuplicateToolError, ToolRegistry } from '../../lib/registry/registry.ts';

const tool = (name: string, tags: string[] = [], text = name) => new FnToolExecutor({ name, tags }, () => text);

describe('ToolRegistry', () => {
  it('registers, gets, lists and unregisters tools in registration order', () => {
    const registry = new ToolRegistry();
    registry.register(tool('b'));
    registry.register(tool('a'));
    expect(registry.names()).toEqual(['b', 'a']);
    expect(registry.size).toBe(2);
    expect(registry.has('a')).toBe(true);
    expect(registry.get('a')?.name).toBe('a');
    expect(registry.definitions().map((d) => d.name)).toEqual(['b', 'a']);
    expect(registry.unregister('b')).toBe(true);
    expect(registry.unregister('b')).toBe(false);
    expect(registry.names()).toEqual(['a']);
    expect(registry.get('b')).toBeUndefined();
  });

  it('refuses a duplicate name unless replace is set, and then the latest wins', async () => {
    const registry = new ToolRegistry();
    registry.register(tool('x', [], 'first'));
    expect(() => registry.register(tool('x', [], 'second'))).toThrow(DuplicateToolError);
    expect(() => registry.register(tool('x'))).toThrow('tool "x" is already registered; pass { replace: true } to replace it');
    registry.register(tool('x', [], 'second'), { replace: true });
    expect(registry.size).toBe(1);
    const output = await registry.get('x')!.execute({}, { signal: new AbortController().signal, call_id: 'c', thread_id: 't', tenant: 'x', principal: 'p', env: {} });
    expect(output).toBe('second');
  });

  it('filters by tags: a tool must carry every requested tag', () => {
    const registry = new ToolRegistry();
    registry.register(tool('fs_read', ['fs', 'read']));
    registry.register(tool('fs_write', ['fs', 'write']));
    registry.register(tool('web', ['net', 'read']));
    expect(registry.list({ tags: ['fs'] }).map((t) => t.name)).toEqual(['fs_read', 'fs_write']);
    expect(registry.list({ tags: ['read'] }).map((t) => t.name)).toEqual(['fs_read', 'web']);
    expect(registry.list({ tags: ['fs', 'read'] }).map((t) => t.name)).toEqual(['fs_read']);
    expect(registry.list({ tags: ['nope'] })).toEqual([]);
    expect(registry.list({ tags: [] })).toHaveLength(3);
  });

  it('fills definition defaults: read tier, no scopes or tags, an object schema', () => {
    const { definition } = tool('plain');
    expect(definition).toMatchObject({ name: 'plain', description: '', tier: 'read', scopes: [], tags: [], input_schema: { type: 'object' } });
  });
});
