/**
 * The reader's connections, a few per database, at most `size` open at once: a connection is bound
 * to one database, so an idle one of another database is closed to make room when every slot is
 * taken. A connection that broke, or that a statement left in a state the engine cannot vouch for,
 * is closed instead of being returned (the next statement gets a fresh one).
 */
import pg from 'pg';
import { connect, type PgServer } from './pg-server.js';

/** One open connection of the reader. */
export interface PooledConnection {
  readonly client: pg.Client;
  readonly database: string;
  /** The session settings as the server printed them after the first BEGIN (pinned values). */
  pinned?: readonly string[];
}

interface Waiter {
  readonly database: string;
  readonly resolve: (connection: PooledConnection) => void;
  readonly reject: (error: unknown) => void;
}

/** Connections of the reader role, see the module doc. */
export class ConnectionPool {
  readonly #idle: PooledConnection[] = [];
  readonly #waiters: Waiter[] = [];
  #open = 0;
  #closed = false;

  constructor(
    private readonly server: PgServer,
    private readonly size: number,
  ) {}

  /** Backend pids of the open connections (idle ones), for tests and diagnostics. */
  get idleCount(): number {
    return this.#idle.length;
  }

  /**
   * A connection to `database`: an idle one, a new one when a slot is free (closing an idle
   * connection of another database if needed), else the next one released.
   * @throws pg's error when the connection cannot be made (a missing database is SQLSTATE 3D000).
   */
  acquire(database: string): Promise<PooledConnection> {
    const index = this.#idle.findIndex((connection) => connection.database === database);
    if (index >= 0) return Promise.resolve(this.#idle.splice(index, 1)[0]!);
    if (this.#open >= this.size && this.#idle.length > 0) {
      const victim = this.#idle.shift()!;
      this.#open -= 1;
      void victim.client.end().catch(() => undefined);
    }
    if (this.#open < this.size) return this.#connect(database);
    return new Promise((resolve, reject) => this.#waiters.push({ database, resolve, reject }));
  }

  async #connect(database: string): Promise<PooledConnection> {
    this.#open += 1;
    try {
      const connection: PooledConnection = { client: await connect(this.server, 'reader', database), database };
      // An idle connection the server closed (its backend ended, the server stopped) leaves the pool
      // at once, so the next statement does not start on it.
      connection.client.once('end', () => {
        const index = this.#idle.indexOf(connection);
        if (index < 0) return;
        this.#idle.splice(index, 1);
        this.#open -= 1;
        this.#wakeWaiter();
      });
      return connection;
    } catch (error) {
      this.#open -= 1;
      this.#wakeWaiter();
      throw error;
    }
  }

  /** Returns a connection (`healthy`) or closes it. */
  release(connection: PooledConnection, healthy: boolean): void {
    if (!healthy || this.#closed) {
      this.#open -= 1;
      void connection.client.end().catch(() => undefined);
      this.#wakeWaiter();
      return;
    }
    const waiter = this.#waiters.findIndex((candidate) => candidate.database === connection.database);
    if (waiter >= 0) {
      this.#waiters.splice(waiter, 1)[0]!.resolve(connection);
      return;
    }
    this.#idle.push(connection);
    this.#wakeWaiter();
  }

  /** A waiter for another database gets a slot when one frees (an idle connection is closed for it). */
  #wakeWaiter(): void {
    const waiter = this.#waiters[0];
    if (waiter === undefined || this.#closed) return;
    if (this.#open >= this.size && this.#idle.length > 0) {
      const victim = this.#idle.shift()!;
      this.#open -= 1;
      void victim.client.end().catch(() => undefined);
    }
    if (this.#open < this.size) {
      this.#waiters.shift();
      this.#connect(waiter.database).then(waiter.resolve, waiter.reject);
    }
  }

  /** Closes every idle connection; connections in use close when released. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const waiter of this.#waiters.splice(0)) waiter.reject(new Error('the engine is closed'));
    const idle = this.#idle.splice(0);
    this.#open -= idle.length;
    await Promise.all(idle.map((connection) => connection.client.end().catch(() => undefined)));
  }
}
