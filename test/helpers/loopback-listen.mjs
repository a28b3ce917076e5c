/**
 * Preloaded (`node --import`) into servers that take a port but no host, such as the
 * `mcp-server-everything` bin: a listen() given only a port binds 127.0.0.1, not every
 * interface, as servers in tests must.
 */
import net from 'node:net';

const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function listenOnLoopback(...args) {
  const portOnly = typeof args[0] === 'number' || (typeof args[0] === 'string' && /^\d+$/.test(args[0]));
  if (portOnly && typeof args[1] !== 'string') args.splice(1, 0, '127.0.0.1');
  return listen.apply(this, args);
};
