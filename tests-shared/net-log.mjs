// Preloaded with NODE_OPTIONS=--import into promptfoo (and its children) by promptfoo-main.test.ts:
// appends "host:port" of every outgoing TCP connection to $NET_LOG.
import net from 'node:net';
import { appendFileSync } from 'node:fs';

const file = process.env.NET_LOG;
const original = net.Socket.prototype.connect;
net.Socket.prototype.connect = function connect(...args) {
  try {
    const first = args[0];
    const options = typeof first === 'object' && first !== null && !Array.isArray(first) ? first : { port: first, host: typeof args[1] === 'string' ? args[1] : undefined };
    if (file && options.path === undefined) appendFileSync(file, `${options.host ?? 'localhost'}:${options.port}\n`);
  } catch {
    // logging must never break a connection
  }
  return original.apply(this, args);
};
