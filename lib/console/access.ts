import type { Principal } from '../governance/api-keys.ts';

/** The console's pages and the scopes that open each (any one of them); the nav lists only those a principal may open. */
export const CONSOLE_PAGES = [
  { id: 'approvals', title: 'Approvals', path: '/console/approvals', scopes: ['approvals:read', 'approvals:decide'] },
  { id: 'audit', title: 'Audit', path: '/console/audit', scopes: ['audit:read'] },
  { id: 'manifests', title: 'Manifests', path: '/console/manifests', scopes: ['admin'] },
  { id: 'keys', title: 'Keys', path: '/console/keys', scopes: ['admin'] },
  /** Everyone's own grants (an admin sees the tenant's): any signed-in principal ('*'). */
  { id: 'connections', title: 'Connections', path: '/console/connections', scopes: ['*'] },
] as const;

export type PageId = (typeof CONSOLE_PAGES)[number]['id'];

export function holdsAny(principal: Principal, scopes: readonly string[]): boolean {
  return scopes.some((scope) => scope === '*' || principal.scopes.includes(scope));
}

export function mayOpen(principal: Principal, page: PageId): boolean {
  return holdsAny(principal, CONSOLE_PAGES.find((p) => p.id === page)!.scopes);
}

export function openablePages(principal: Principal) {
  return CONSOLE_PAGES.filter((page) => holdsAny(principal, page.scopes));
}
