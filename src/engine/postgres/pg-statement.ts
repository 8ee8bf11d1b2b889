/**
 * One statement through PostgreSQL's extended query protocol, as a node-postgres "submittable":
 * Parse and Describe first (the server parses the text as ONE statement — a second one is its own
 * error — and says whether it returns rows), and only when it returns rows Bind and Execute, a
 * batch of rows at a time, so the row and byte caps stop reading early. The text is sent as it is:
 * never spliced into a `PREPARE` string, never run through the simple protocol (which runs several
 * statements). Values arrive as text and are decoded after reading (pg-cells.ts).
 */
import pg from 'pg';
import type { ExecutionError } from '../engine.js';
import { postgresError } from './pg-errors.js';

/** The few methods of node-postgres's `Connection` a submittable writes with. */
interface ProtocolConnection {
  parse(query: { text: string; name?: string; types?: number[] }): void;
  describe(message: { type: 'S' | 'P'; name?: string }): void;
  bind(config: { portal?: string; statement?: string; values?: unknown[]; binary?: boolean }): void;
  execute(config: { portal?: string; rows?: number }): void;
  flush(): void;
  sync(): void;
  once(event: 'noData', listener: () => void): unknown;
  removeListener(event: 'noData', listener: () => void): unknown;
}

/** A column as the server describes it. */
export interface DescribedField {
  readonly name: string;
  /** Type OID. */
  readonly dataTypeID: number;
}

/**
 * What one statement gave: its columns and raw rows (text or NULL), or an error; `connectionBroken`
 * when the connection must not be used again (it broke, or a cancel request was sent for it).
 */
export type StatementOutcome =
  | { readonly ok: true; readonly fields: readonly DescribedField[]; readonly rows: readonly (readonly (string | null)[])[] }
  | { readonly ok: false; readonly error: ExecutionError; readonly connectionBroken?: boolean };

/** Options of {@link ExtendedStatement}. */
export interface StatementOptions {
  /** `prepare`: parse and describe only; `execute`: also run and read rows. */
  readonly mode: 'prepare' | 'execute';
  readonly maxRows: number;
  /** Byte cap: 8 per cell plus 2 per character. */
  readonly maxResultBytes: number;
}

/** Rows asked for per Execute message. */
const BATCH_ROWS = 1000;

/**
 * A statement for `client.query(statement)`; `statement.outcome` settles when the server is ready
 * again (or at once when the connection breaks).
 */
export class ExtendedStatement {
  readonly outcome: Promise<StatementOutcome>;
  #settle!: (outcome: StatementOutcome) => void;
  #connection: ProtocolConnection | undefined;
  #fields: DescribedField[] | undefined;
  readonly #rows: (string | null)[][] = [];
  #bytes = 0;
  #overflow: ExecutionError | undefined;
  #failure: StatementOutcome | undefined;
  #synced = false;
  #settled = false;
  readonly #onNoData = (): void => this.#noData();

  constructor(
    readonly text: string,
    readonly options: StatementOptions,
  ) {
    this.outcome = new Promise((resolve) => {
      this.#settle = resolve;
    });
  }

  /** Called by node-postgres when the connection is free: Parse, Describe, Flush. */
  submit(connection: ProtocolConnection): void {
    this.#connection = connection;
    connection.once('noData', this.#onNoData);
    connection.parse({ text: this.text, types: [] });
    connection.describe({ type: 'S', name: '' });
    connection.flush();
  }

  #sync(): void {
    if (this.#synced) return;
    this.#synced = true;
    this.#connection?.removeListener('noData', this.#onNoData);
    this.#connection?.sync();
  }

  #noData(): void {
    this.#failure = {
      ok: false,
      error: { code: 'not_a_query', message: 'not a query: PostgreSQL describes the statement as returning no rows; only SELECT, WITH … SELECT, VALUES and TABLE run' },
    };
    this.#sync();
  }

  #batch(): number {
    return Math.min(BATCH_ROWS, this.options.maxRows + 1 - this.#rows.length);
  }

  handleRowDescription(message: { fields: DescribedField[] }): void {
    if (this.#fields !== undefined) return;
    this.#fields = message.fields.map((field) => ({ name: field.name, dataTypeID: field.dataTypeID }));
    if (this.options.mode === 'prepare') {
      this.#sync();
      return;
    }
    this.#connection!.removeListener('noData', this.#onNoData);
    this.#connection!.bind({ values: [] });
    this.#connection!.execute({ rows: this.#batch() });
    this.#connection!.flush();
  }

  handleDataRow(message: { fields: (string | null)[] }): void {
    if (this.#overflow !== undefined) return;
    if (this.#rows.length >= this.options.maxRows) {
      this.#overflow = { code: 'result_too_large', message: `result too large: more than ${this.options.maxRows} row${this.options.maxRows === 1 ? '' : 's'} (maxRows); stopped reading at row ${this.options.maxRows + 1}` };
      return;
    }
    for (const value of message.fields) this.#bytes += 8 + (value === null ? 0 : 2 * value.length);
    if (this.#bytes > this.options.maxResultBytes) {
      this.#overflow = { code: 'result_too_large', message: `result too large: more than ${this.options.maxResultBytes} bytes (maxResultBytes); stopped reading at row ${this.#rows.length + 1}` };
      return;
    }
    this.#rows.push(message.fields);
  }

  handlePortalSuspended(): void {
    if (this.#overflow !== undefined || this.#batch() <= 0) {
      this.#overflow ??= { code: 'result_too_large', message: `result too large: more than ${this.options.maxRows} row${this.options.maxRows === 1 ? '' : 's'} (maxRows); stopped reading at row ${this.options.maxRows + 1}` };
      this.#sync();
      return;
    }
    this.#connection!.execute({ rows: this.#batch() });
    this.#connection!.flush();
  }

  handleCommandComplete(): void {
    this.#sync();
  }

  handleEmptyQuery(): void {
    this.#failure = { ok: false, error: { code: 'empty_statement', message: 'empty statement: the text holds no SQL (only whitespace, comments or semicolons)' } };
    this.#sync();
  }

  /** A server error (then the server waits for Sync) or a broken connection (nothing more comes). */
  handleError(error: Error): void {
    if (error instanceof pg.DatabaseError) {
      this.#failure = { ok: false, error: postgresError(error) };
      this.#sync();
      // node-postgres forgets the statement on an error; the server's ReadyForQuery still follows
      // the Sync, and later queries wait for it.
      this.#finish();
      return;
    }
    this.#failure = { ok: false, error: { code: 'engine_failure', message: `engine failure: the connection to the server broke (${error.message}); replaced` }, connectionBroken: true };
    this.#finish();
  }

  handleReadyForQuery(): void {
    this.#finish();
  }

  #finish(): void {
    if (this.#settled) return;
    this.#settled = true;
    this.#connection?.removeListener('noData', this.#onNoData);
    if (this.#failure !== undefined) this.#settle(this.#failure);
    else if (this.#overflow !== undefined) this.#settle({ ok: false, error: this.#overflow });
    else this.#settle({ ok: true, fields: this.#fields ?? [], rows: this.#rows });
  }
}
