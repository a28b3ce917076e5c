import type { MiddlewareHandler } from 'hono';
import { CONSOLE_PAGES, holdsAny, type PageId } from './access.ts';
import type { ConsoleEnv } from './env.ts';
import { messagePage } from './layout.ts';

/** A page the principal's scopes do not open is refused (403), as the API refuses its route. */
export function requirePage(id: PageId): MiddlewareHandler<ConsoleEnv> {
  const page = CONSOLE_PAGES.find((p) => p.id === id)!;
  return requireScopes(page.scopes, `open the ${page.title} page`);
}

/** Server-side refusal of an action (or page) without one of `scopes`, whatever the form or link sent. */
export function requireScopes(scopes: string | readonly string[], what: string): MiddlewareHandler<ConsoleEnv> {
  const needed = typeof scopes === 'string' ? [scopes] : scopes;
  return async (c, next) => {
    if (!holdsAny(c.get('principal'), needed)) {
      return messagePage(c, 403, 'Not allowed', `your key lacks the scope ${needed.map((s) => `"${s}"`).join(' or ')} needed to ${what}`);
    }
    await next();
  };
}
