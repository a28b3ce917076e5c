import { resolveSecret, SECRET_REFERENCE, type ResolveSecret } from '../../crypto/secrets.ts';

type Env = Readonly<Record<string, string | undefined>>;

/**
 * Header values written as "env:NAME" are resolved (from `env`, or by a tenant's resolver, which
 * resolves only its grants); others are sent as written.
 */
export function resolveHeaders(headers: Readonly<Record<string, string>> | undefined, secrets: Env | ResolveSecret): Record<string, string> {
  const resolve = typeof secrets === 'function' ? secrets : (reference: string) => resolveSecret(reference, secrets);
  return Object.fromEntries(Object.entries(headers ?? {}).map(([name, value]) => [name, SECRET_REFERENCE.test(value) ? resolve(value) : value]));
}
