import { networkInterfaces } from 'node:os';
import { hostAllowed, isLoopbackHost, loopbackHosts } from '../../http/origin-policy.ts';
import type { Refusal } from './admission.ts';

/** The refusal code of a browser's request or a Host the exec-server does not answer to (as the gateway's). */
export const FORBIDDEN_ORIGIN = 'forbidden_origin';

const WILDCARD_ADDRESSES = new Set(['0.0.0.0', '::', '[::]', '']);

/**
 * The Host header values an exec-server answers to: the names it listens as, with its port, and
 * the operator's extra names (--allowed-host: a name the gateway uses, e.g. exec.internal). On a
 * loopback address those are 127.0.0.1, localhost and [::1]; on a wildcard address (0.0.0.0, ::)
 * also every address of this host's interfaces at start; on any other address that address.
 * A DNS-rebinding page (a name of the attacker's, re-pointed at this server) sends its own name.
 */
export function hostsServed(host: string, port: number, extra: readonly string[] = []): string[] {
  const own = isLoopbackHost(host) ? loopbackHosts(port) : WILDCARD_ADDRESSES.has(host) ? [...withPort(host, port), ...loopbackHosts(port), ...interfaceHosts(port)] : withPort(host, port);
  return [...own, ...extra];
}

function interfaceHosts(port: number): string[] {
  const addresses = Object.values(networkInterfaces()).flatMap((list) => list ?? []);
  // A link-local IPv6 address needs a zone (fe80::1%eth0), which a Host header cannot carry.
  return addresses.filter((a) => !a.address.includes('%') && !a.address.toLowerCase().startsWith('fe80:')).flatMap((a) => withPort(a.address, port));
}

function withPort(address: string, port: number): string[] {
  const name = address.includes(':') && !address.startsWith('[') ? `[${address}]` : address;
  // On port 80 clients leave the port out.
  return port === 80 ? [`${name}:80`, name] : [`${name}:${port}`];
}

/**
 * Refuses a request from a web page: browsers send Origin (on every cross-origin request and on
 * same-origin writes), the gateway and other programs never do; and a Host the server does not
 * answer to. Checked before anything of the body is read. Nothing is said about the served names.
 */
export function originRefusal(headers: { host?: string; origin?: string }, served: readonly string[]): Refusal | undefined {
  if (headers.origin !== undefined) {
    return { status: 403, code: FORBIDDEN_ORIGIN, message: 'requests from web pages (with an Origin header) are refused: nothing ran; the exec-server answers its gateway only' };
  }
  if (headers.host === undefined || !hostAllowed(headers.host, served)) {
    const sent = headers.host === undefined ? 'no Host header' : `Host "${headers.host.slice(0, 100)}"`;
    return {
      status: 403,
      code: FORBIDDEN_ORIGIN,
      message: `${sent} is not a name this exec-server answers to: nothing ran; call it by the address it listens on, or its operator adds the name with --allowed-host NAME`,
    };
  }
  return undefined;
}
