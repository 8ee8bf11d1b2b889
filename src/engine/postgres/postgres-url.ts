/**
 * PostgreSQL URLs as the ladder shows and reads them, without the driver: a URL in a message never
 * carries its password, and a URL given where a database is expected names that database.
 */

/** True for a `postgres://` or `postgresql://` URL. */
export function isPostgresUrl(text: string): boolean {
  return /^postgres(ql)?:\/\//i.test(text);
}

/**
 * The URL as messages show it: scheme, user, host, port and database, never the password or the
 * query string. A text that does not parse as a URL is shown as `(an unreadable URL)`; a text that
 * is not a PostgreSQL URL is shown as it is, without a `user:password@` part.
 * @example shownUrl('postgres://ladder:s3cret@db.internal:5432/shop?sslmode=require') // 'postgres://ladder@db.internal:5432/shop'
 */
export function shownUrl(url: string): string {
  if (!isPostgresUrl(url)) return url.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1@');
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.username ? `${decodeURIComponent(parsed.username)}@` : ''}${parsed.host}${parsed.pathname}`;
  } catch {
    return '(an unreadable URL)';
  }
}

/**
 * The database a URL names (its path), or `undefined` when it names none.
 * @example urlDatabase('postgres://me@%2Fvar%2Frun%2Fpostgresql/shop') // 'shop'
 */
export function urlDatabase(url: string): string | undefined {
  try {
    const path = new URL(url).pathname;
    return path.length > 1 ? decodeURIComponent(path.slice(1)) : undefined;
  } catch {
    return undefined;
  }
}
