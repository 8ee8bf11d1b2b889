// Preloaded with NODE_OPTIONS=--import into promptfoo (and its children) by promptfoo-main.test.ts:
// appends "host:port" of every outgoing TCP connection to $NET_LOG.
import net from 'node:net';
import { appendFileSync } from 'node:fs';

const file = process.env.NET_LOG;
const original = net.Socket.prototype.connect;
net.Socket.prototype.connect = function connect(...args) {
  try {
    // Node calls connect() with its normalized [options, callback] array, users with (options) or (port, host).
    const first = Array.isArray(args[0]) ? args[0][0] : args[0];
    const options = typeof first === 'object' && first !== null ? first : { port: first, host: typeof args[1] === 'string' ? args[1] : undefined };
    if (file && options.port !== undefined && options.port !== null) appendFileSync(file, `${options.host ?? 'localhost'}:${options.port}\n`);
  } catch {
    // logging must never break a connection
  }
  return original.apply(this, args);
};
