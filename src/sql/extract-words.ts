/**
 * The SQL words SQL extraction (extract.ts) reads: which words start a statement, which continue
 * one after a blank line, and the first word of a text past its leading comments.
 */

/** Words that start a SQL statement (lower-case). */
export const STATEMENT_KEYWORDS = new Set([
  'select', 'with', 'values', 'insert', 'update', 'delete', 'replace', 'merge', 'upsert',
  'create', 'drop', 'alter', 'truncate', 'pragma', 'attach', 'detach', 'vacuum', 'reindex',
  'analyze', 'explain', 'begin', 'commit', 'end', 'rollback', 'savepoint', 'release', 'set',
  'copy', 'grant', 'revoke', 'call', 'execute', 'exec', 'do', 'show', 'describe', 'use',
  'lock', 'unlock', 'load', 'declare', 'prepare', 'table',
]);

/** Words that may start a continuation line of a statement after a blank line. */
export const CONTINUATION_KEYWORDS = new Set([
  ...STATEMENT_KEYWORDS,
  'from', 'where', 'join', 'inner', 'left', 'right', 'full', 'cross', 'natural', 'on', 'using',
  'and', 'or', 'not', 'group', 'order', 'having', 'limit', 'offset', 'union', 'intersect',
  'except', 'window', 'as', 'case', 'when', 'then', 'else', 'returning', 'into', 'qualify',
  'fetch', 'for', 'distinct', 'all', 'partition', 'over', 'is', 'in', 'between', 'like',
]);

/** The first word of `text` (lower-case), past leading comments, whitespace and `(`; '' when none. */
export function firstWord(text: string): string {
  const match = /^[\s(]*([A-Za-z_]+)/.exec(stripLeadingComments(text));
  return (match?.[1] ?? '').toLowerCase();
}

/** True when the first word of `text` starts a statement (SELECT, WITH, DROP, …). */
export function startsWithStatementKeyword(text: string): boolean {
  return STATEMENT_KEYWORDS.has(firstWord(text));
}

/** `text` without leading whitespace and `--` / block comments. */
export function stripLeadingComments(text: string): string {
  let rest = text;
  for (;;) {
    const trimmed = rest.trimStart();
    if (trimmed.startsWith('--')) {
      const newline = trimmed.indexOf('\n');
      rest = newline < 0 ? '' : trimmed.slice(newline + 1);
    } else if (trimmed.startsWith('/*')) {
      const end = trimmed.indexOf('*/');
      rest = end < 0 ? '' : trimmed.slice(end + 2);
    } else {
      return trimmed;
    }
  }
}
