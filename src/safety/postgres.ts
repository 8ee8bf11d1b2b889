/**
 * L3 on PostgreSQL text the AST layer cannot read: the statements sql-parser-cst's postgresql
 * grammar does not have (NOTIFY, LISTEN, LOCK, COPY, LOAD, ALTER SYSTEM, SET SESSION
 * AUTHORIZATION, PREPARE TRANSACTION, …) and the blocked functions, named from PostgreSQL's tokens
 * (postgres-lexer.ts: strings, dollar quotes, quoted names and comments never match), so that such
 * a text fails with what it does, not only as "not analysed".
 *
 * The kinds are L3's (src/rungs/safety.ts) plus PostgreSQL's own: `notify` (NOTIFY / LISTEN /
 * UNLISTEN, `pg_notify`), `table_lock` (LOCK), `copy` (COPY, with the file or program it reaches),
 * `extension` (CREATE EXTENSION, LOAD), `server_admin` (ALTER SYSTEM, CHECKPOINT, CLUSTER).
 * Statement semantics from the PostgreSQL 15 manual's SQL Commands reference.
 */
import { splitStatements, tokenizePostgres, type PostgresToken } from '../sql/postgres-lexer.js';
import { checkFunction } from './functions.js';

/** One finding: kind, message and the 0-based offset it points at. */
export interface TokenViolation {
  readonly kind: string;
  readonly message: string;
  readonly offset: number;
}

/** First word(s) of a statement → its kind and what it does. Longest match first. */
const STATEMENTS: readonly (readonly [words: readonly string[], kind: string, what: string])[] = [
  [['notify'], 'notify', 'NOTIFY sends a notification to other sessions'],
  [['listen'], 'notify', 'LISTEN subscribes the session to notifications'],
  [['unlisten'], 'notify', 'UNLISTEN changes the session\'s notification subscriptions'],
  [['lock'], 'table_lock', 'LOCK takes a table lock that blocks other sessions'],
  [['load'], 'extension', 'LOAD loads a shared library into the server process'],
  [['create', 'extension'], 'extension', 'CREATE EXTENSION installs code into the database (dblink, file_fdw reach other servers and files)'],
  [['alter', 'extension'], 'extension', 'ALTER EXTENSION changes installed code'],
  [['alter', 'system'], 'server_admin', 'ALTER SYSTEM rewrites the server configuration'],
  [['checkpoint'], 'server_admin', 'CHECKPOINT forces a server checkpoint'],
  [['cluster'], 'server_admin', 'CLUSTER rewrites a table under an exclusive lock'],
  [['discard'], 'session_change', 'DISCARD resets the session'],
  [['set', 'session', 'authorization'], 'session_change', 'SET SESSION AUTHORIZATION changes the session\'s user'],
  [['set', 'role'], 'session_change', 'SET ROLE changes the session\'s role'],
  [['set'], 'session_change', 'SET changes a session setting'],
  [['reset'], 'session_change', 'RESET changes a session setting'],
  [['prepare', 'transaction'], 'transaction', 'PREPARE TRANSACTION leaves a two-phase transaction on the server'],
  [['commit', 'prepared'], 'transaction', 'COMMIT PREPARED ends a two-phase transaction'],
  [['rollback', 'prepared'], 'transaction', 'ROLLBACK PREPARED ends a two-phase transaction'],
  [['prepare'], 'procedure_call', 'PREPARE creates a prepared statement on the session'],
  [['execute'], 'procedure_call', 'EXECUTE runs a prepared statement'],
  [['deallocate'], 'procedure_call', 'DEALLOCATE drops a prepared statement'],
  [['do'], 'procedure_call', 'DO runs a procedural block'],
  [['call'], 'procedure_call', 'CALL runs a procedure'],
  [['security', 'label'], 'ddl_statement', 'SECURITY LABEL changes an object\'s label'],
  [['import', 'foreign', 'schema'], 'ddl_statement', 'IMPORT FOREIGN SCHEMA creates foreign tables'],
  [['reassign', 'owned'], 'privilege_statement', 'REASSIGN OWNED changes owners'],
  [['drop', 'owned'], 'privilege_statement', 'DROP OWNED drops a role\'s objects'],
  [['refresh', 'materialized', 'view'], 'ddl_statement', 'REFRESH MATERIALIZED VIEW rewrites a view\'s data'],
];

function isWord(token: PostgresToken | undefined, word: string): boolean {
  return token?.kind === 'word' && token.value.toLowerCase() === word;
}

/** COPY: what it reaches (a program, a server file, the client). */
function copyViolation(tokens: readonly PostgresToken[]): TokenViolation {
  const start = tokens[0]!.start;
  const program = tokens.findIndex((token) => isWord(token, 'program'));
  if (program >= 0) return { kind: 'copy', message: 'COPY … PROGRAM runs a shell command on the server', offset: tokens[program]!.start };
  const direction = tokens.findIndex((token, i) => (isWord(token, 'to') || isWord(token, 'from')) && tokens[i + 1]?.kind === 'string');
  if (direction >= 0) return { kind: 'copy', message: `COPY … ${tokens[direction]!.value.toUpperCase()} a file reads or writes a file on the server`, offset: tokens[direction]!.start };
  return { kind: 'copy', message: 'COPY moves a table\'s data in or out outside a query', offset: start };
}

/** Row-locking clauses: FOR UPDATE, FOR NO KEY UPDATE, FOR SHARE, FOR KEY SHARE. */
function rowLocks(tokens: readonly PostgresToken[]): TokenViolation[] {
  const found: TokenViolation[] = [];
  for (let i = 0; i < tokens.length; i += 1) {
    if (!isWord(tokens[i], 'for')) continue;
    const next = tokens[i + 1];
    const locks = isWord(next, 'update') || isWord(next, 'share') || (isWord(next, 'no') && isWord(tokens[i + 2], 'key')) || (isWord(next, 'key') && isWord(tokens[i + 2], 'share'));
    if (locks) found.push({ kind: 'row_lock', message: 'FOR UPDATE / FOR SHARE locks rows (blocks writers)', offset: tokens[i]!.start });
  }
  return found;
}

/**
 * What the tokens of a PostgreSQL text show that L3 refuses: each statement's kind by its first
 * words (a query is none), COPY's reach, row-locking clauses and every call of a blocked function
 * (`pg_read_file(`, `dblink_exec(`, `pg_advisory_lock(` …). Unknown functions are not judged here
 * (a keyword before a parenthesis looks the same). Never throws.
 * @example postgresTokenViolations("NOTIFY jobs, 'x'") // [{ kind: 'notify', message: 'NOTIFY sends …', offset: 0 }]
 */
export function postgresTokenViolations(sql: string): TokenViolation[] {
  const found: TokenViolation[] = [];
  const tokens = tokenizePostgres(sql);
  for (const statement of splitStatements(tokens)) {
    let first = 0;
    while (statement[first]?.kind === 'punctuation' && statement[first]!.value === '(') first += 1;
    const head = statement.slice(first);
    if (isWord(head[0], 'copy')) found.push(copyViolation(head));
    else {
      const match = STATEMENTS.find(([words]) => words.every((word, i) => isWord(head[i], word)));
      if (match !== undefined) found.push({ kind: match[1], message: match[2], offset: head[0]!.start });
    }
    found.push(...rowLocks(statement));
  }
  for (let i = 0; i < tokens.length - 1; i += 1) {
    const token = tokens[i]!;
    const next = tokens[i + 1]!;
    if (token.kind !== 'word' || next.kind !== 'punctuation' || next.value !== '(') continue;
    const qualifier = tokens[i - 1]?.value === '.' && tokens[i - 2]?.kind === 'word' ? `${tokens[i - 2]!.value}.` : '';
    const verdict = checkFunction(`${qualifier}${token.value}`, 'postgres');
    if (!verdict.allowed && verdict.kind === 'blocked_function') found.push({ kind: 'blocked_function', message: `${token.value}(): ${verdict.reason}`, offset: token.start });
  }
  return found.sort((a, b) => a.offset - b.offset);
}
