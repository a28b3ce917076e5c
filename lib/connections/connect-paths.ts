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

const CONNECT_LINK_HANDLE = /(\/connect\/[^\s?"]+\?link=)[A-Za-z0-9_-]{43}/g;

/**
 * Text with every connect link's handle withheld: a link is a bearer for its principal's consent,
 * so a copy kept for others to read (the audit trail, which the tenant admin reads) would let that
 * reader consent first, with their own upstream account, in the user's name.
 */
export function withoutConnectLinks(text: string): string {
  return text.replace(CONNECT_LINK_HANDLE, '$1(withheld)');
}
