import type { BoundDefinition } from './definition-binding.ts';
import type { JsonObject } from './json.ts';

/** What stands for a hidden value. */
const MASK = '••••••';
/** A summary longer than this is cut (a manifest's URL is the tenant's to choose). */
const MAX_SUMMARY_CHARS = 500;

/**
 * What a reviewer is shown of the executor an approval will run, secrets masked: URLs without
 * their user info, query values or fragment, headers by name only (a value may be a secret).
 */
export interface ExecutorTarget {
  /** The executor's kind (`http`, `mcp`, `builtin`, `client`), or `code` for a tool registered in code. */
  kind: string;
  /** One line: `POST https://api.example.com/refund (headers: Authorization)`. */
  summary: string;
  /** The endpoint called (the exec-server's for a coding built-in), masked. */
  url?: string;
}

/** `url` as shown to a reviewer: scheme, host, path and query parameter names kept; user info, query values and fragment masked. */
export function maskedUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return '(not a valid URL)';
  }
  const userinfo = url.username || url.password ? `${MASK}@` : '';
  // A parameter's name stays (it says what is sent); its value is masked, and so is a bare `?token`.
  const query = url.search.slice(1).split('&').filter(Boolean).map((part) => (part.includes('=') ? `${part.slice(0, part.indexOf('='))}=${MASK}` : MASK)).join('&');
  return `${url.protocol}//${userinfo}${url.host}${url.pathname}${query ? `?${query}` : ''}${url.hash ? `#${MASK}` : ''}`;
}

const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

function headerNames(config: JsonObject): string {
  const headers = config.headers;
  const names = headers && typeof headers === 'object' && !Array.isArray(headers) ? Object.keys(headers) : [];
  return names.length > 0 ? ` (headers: ${names.join(', ')})` : '';
}

const clip = (line: string) => (line.length > MAX_SUMMARY_CHARS ? `${line.slice(0, MAX_SUMMARY_CHARS - 1)}…` : line);

/**
 * The target of a bound definition. `runsInGateway` says whether a built-in of that name runs
 * inside the gateway (echo) rather than on the tenant's exec-server (the coding tools).
 */
export function executorTarget(bound: BoundDefinition, runsInGateway: (builtin: string) => boolean): ExecutorTarget {
  const config = bound.tool.executor;
  const kind = config.kind;
  const withUrl = (raw: string | undefined, line: (url: string) => string): ExecutorTarget => {
    const url = raw === undefined ? '(no URL)' : maskedUrl(raw);
    return { kind, summary: clip(line(url)), url };
  };
  switch (kind) {
    case 'http':
      return withUrl(text(config.url), (url) => `POST ${url}${headerNames(config)}`);
    case 'mcp': {
      const server = text(config.server);
      return withUrl(text(config.url), (url) => `MCP tool "${text(config.tool) ?? bound.tool.name}" on ${server ? `server "${server}" at ` : ''}${url}${headerNames(config)}`);
    }
    case 'builtin': {
      const builtin = text(config.name) ?? bound.tool.name;
      const environment = bound.execution_environment;
      if (runsInGateway(builtin) || !environment) return { kind, summary: clip(`built-in "${builtin}", run inside the gateway`) };
      const network = environment.network ? ', network allowed' : ', no network';
      return withUrl(environment.url, (url) => `built-in "${builtin}" on the exec-server ${url} (profile ${bound.profile ?? 'openai'}${network})`);
    }
    case 'client':
      return { kind, summary: "run by the agent's own client (the gateway hands the call back)" };
    default:
      return { kind, summary: clip(`executor "${kind}"`) };
  }
}
