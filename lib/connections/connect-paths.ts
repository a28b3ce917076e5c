import type { GrantOwner } from './grant-store.ts';

/** `/connect/<tenant>/<connection>`: where a connect link starts the consent. */
export function connectPath(owner: Pick<GrantOwner, 'tenant' | 'connection'>): string {
  return `/connect/${encodeURIComponent(owner.tenant)}/${encodeURIComponent(owner.connection)}`;
}

/** The connect link a principal is given: the consent start with its single-use handle. */
export function connectUrl(origin: string, owner: GrantOwner, link: string): string {
  return `${origin}${connectPath(owner)}?link=${link}`;
}

/** The redirect URI registered at the provider: one per connection (the mix-up defence for providers that send no `iss`). */
export function callbackUrl(origin: string, owner: Pick<GrantOwner, 'tenant' | 'connection'>): string {
  return `${origin}${connectPath(owner)}/callback`;
}
