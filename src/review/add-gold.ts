/**
 * Adds one gold SQL to one item of a dataset file's text, leaving every other byte as it was
 * (*Text-to-SQL Evals* §12: "store multiple valid gold queries when questions allow legitimate
 * alternatives"). The review queue's `--accept` writes through here.
 *
 * YAML: the yaml library's parsed document locates the item and its `gold_sql` (node ranges), and
 * its CST writer renders the new gold as YAML source (plain or quoted when it fits one line, a
 * `|-` literal block when the SQL has several lines); the text is spliced at that place only.
 * - `gold_sql` already a block list: one `- <gold>` entry is appended after the last one, at its
 *   indentation; nothing else changes.
 * - `gold_sql` a flow list (`[a, b]`): `, "<gold>"` goes before the `]`.
 * - `gold_sql` a single string: it becomes a block list of the old gold then the new one; the old
 *   gold keeps its text (a folded or literal block keeps its style, its lines indented two more
 *   spaces, as a list entry needs) and any comment on its line. Only the `gold_sql` field changes.
 * JSONL: the item's line gets the gold inside its `gold_sql` value (a string becomes
 * `[old, new]`), the rest of the line (key order, spacing) and every other line unchanged.
 *
 * Every edit is checked by reading the new text back: the whole file must read as before except
 * the item's `gold_sql`, which must be the old list plus the new gold. An edit that would not
 * (an anchor, a tag or a comment between the key and its value, an unusual indentation) is
 * refused, never written.
 */
import { CST, isMap, isScalar, isSeq, parseDocument } from 'yaml';
import type { Node as YamlNode, Pair, YAMLMap, YAMLSeq } from 'yaml';
import { isDeepStrictEqual } from 'node:util';
import { LadderError } from '../errors.js';
import { isObject } from '../objects.js';

/** What {@link addGoldToDatasetText} returns. */
export interface AddedGold {
  /** The whole file's new text. */
  readonly text: string;
  /** 0-based index of the new gold in the item's `gold_sql` list. */
  readonly goldIndex: number;
}

/**
 * Adds `sql` as the last gold of item `id` in a dataset file's text.
 * @param file - the file's path (its extension picks YAML or JSONL; messages name it).
 * @param text - its current text (a byte-order mark, if any, is kept).
 * @throws LadderError `dataset_invalid` when the item is not in the file, has no `gold_sql` of its
 *   own, or the edit cannot be made without changing anything else (the message says what).
 */
export function addGoldToDatasetText(file: string, text: string, id: string, sql: string): AddedGold {
  if (sql.trim() === '') throw new LadderError('invalid_argument', `${file}: item "${id}": the gold to add is empty`);
  return /\.(jsonl|ndjson)$/i.test(file) ? addGoldToJsonl(file, text, id, sql) : addGoldToYaml(file, text, id, sql);
}

// ---------------------------------------------------------------- YAML

function addGoldToYaml(file: string, text: string, id: string, sql: string): AddedGold {
  const doc = parseDocument(text, { uniqueKeys: true });
  if (doc.errors.length > 0) throw refusal(file, id, `the file does not parse as YAML (${doc.errors[0]!.message.split('\n')[0]})`);
  const root = doc.contents;
  const items = isSeq(root) ? root : isMap(root) ? root.get('items', true) : undefined;
  if (!isSeq(items)) throw refusal(file, id, 'the file holds no list of items');
  const item = (items as YAMLSeq).items.find((node): node is YAMLMap => isMap(node) && scalarValue(node.get('id', true)) === id);
  if (item === undefined) throw refusal(file, id, 'no item with this id in the file');
  const pair = item.items.find((entry) => isScalar(entry.key) && entry.key.value === 'gold_sql') as Pair<YamlNode, YamlNode> | undefined;
  if (pair === undefined || pair.value === null || pair.value === undefined) throw refusal(file, id, 'the item has no gold_sql of its own; write its first gold by hand');
  const before = doc.toJS() as unknown;
  const oldGolds = goldList(item.get('gold_sql'));
  const newline = text.includes('\r\n') ? '\r\n' : '\n';
  const value = pair.value;
  let edited: string;
  if (isSeq(value) && value.flow !== true) edited = appendToBlockList(text, value, sql, newline, file, id);
  else if (isSeq(value)) edited = appendToFlowList(text, value, sql, file, id);
  else if (isScalar(value) && typeof value.value === 'string') edited = scalarToBlockList(text, pair.key, value, sql, newline, file, id);
  else throw refusal(file, id, 'gold_sql is neither a SQL string nor a list of them');
  checkYamlEdit(file, id, edited, before, oldGolds, sql);
  return { text: edited, goldIndex: oldGolds.length };
}

/** Appends `- <sql>` after the last entry of a block list, at that entry's indentation. */
function appendToBlockList(text: string, list: YAMLSeq, sql: string, newline: string, file: string, id: string): string {
  const last = list.items.at(-1) as YamlNode | undefined;
  if (last?.range === undefined || last.range === null) throw refusal(file, id, 'gold_sql is an empty block list');
  const lineStart = text.lastIndexOf('\n', last.range[0] - 1) + 1;
  const indicator = /^([ ]*)-[ ]+$/.exec(text.slice(lineStart, last.range[0]));
  if (indicator === null) throw refusal(file, id, 'the last gold_sql entry does not start its own "- " line (an anchor, a tag or a nested list)');
  const column = indicator[1]!.length;
  const at = lineEndAfter(text, last.range[1]);
  const entry = `${' '.repeat(column)}- ${yamlScalarSource(sql, column + 2, newline)}`;
  return `${text.slice(0, at.offset)}${at.missingNewline ? newline : ''}${entry}${text.slice(at.offset)}`;
}

/** Inserts `, "<sql>"` before the `]` of a flow list. */
function appendToFlowList(text: string, list: YAMLSeq, sql: string, file: string, id: string): string {
  const end = list.range?.[1];
  const close = end === undefined ? -1 : text.lastIndexOf(']', end - 1);
  if (close < 0 || end === undefined || close < list.range![0]) throw refusal(file, id, 'cannot find the end of the gold_sql list');
  const quoted = CST.stringify(CST.createScalarToken(sql, { indent: 0, inFlow: true, type: 'QUOTE_DOUBLE' })).replace(/\n$/, '');
  return `${text.slice(0, close)}${list.items.length > 0 ? ', ' : ''}${quoted}${text.slice(close)}`;
}

/**
 * Turns `gold_sql: <old>` into a block list of the old gold and the new one. The old gold's text
 * stays as written, its continuation lines two spaces deeper (a list entry's content sits inside
 * its `- `).
 */
function scalarToBlockList(text: string, key: YamlNode, value: YamlNode, sql: string, newline: string, file: string, id: string): string {
  if (key.range === undefined || key.range === null || value.range === undefined || value.range === null) throw refusal(file, id, 'cannot locate gold_sql in the file');
  const keyLineStart = text.lastIndexOf('\n', key.range[0] - 1) + 1;
  const keyColumn = key.range[0] - keyLineStart;
  if (text.slice(keyLineStart, key.range[0]).trim() !== '') throw refusal(file, id, 'gold_sql does not start its own line');
  const colon = text.indexOf(':', key.range[1]);
  const gap = text.slice(colon + 1, value.range[0]);
  if (colon < 0 || gap.trim() !== '') throw refusal(file, id, 'something stands between "gold_sql:" and its SQL (an anchor, a tag or a comment)');
  const at = lineEndAfter(text, value.range[1]);
  const pad = ' '.repeat(keyColumn + 2);
  const oldSource = text
    .slice(value.range[0], at.offset)
    .split('\n')
    .map((line, index) => (index === 0 || line.trim() === '' ? line : `  ${line}`))
    .join('\n');
  const oldEntry = `${pad}- ${oldSource}${at.missingNewline ? newline : ''}`;
  const newEntry = `${pad}- ${yamlScalarSource(sql, keyColumn + 4, newline)}`;
  return `${text.slice(0, colon + 1)}${newline}${oldEntry}${newEntry}${text.slice(at.offset)}`;
}

/**
 * The offset just after the end of the line holding `offset - 1` (a node's end): its newline
 * included; the end of the text (and `missingNewline`) when the last line has none.
 */
function lineEndAfter(text: string, offset: number): { readonly offset: number; readonly missingNewline: boolean } {
  if (offset > 0 && text[offset - 1] === '\n') return { offset, missingNewline: false };
  const newline = text.indexOf('\n', offset);
  return newline < 0 ? { offset: text.length, missingNewline: true } : { offset: newline + 1, missingNewline: false };
}

/**
 * The YAML source of a SQL string as a block-context value, ending with a newline: the CST
 * writer's plain or quoted scalar for one line, a `|-` literal block for several (content at
 * `indent` spaces).
 */
function yamlScalarSource(sql: string, indent: number, newline: string): string {
  const multiLine = sql.includes('\n');
  const token = CST.createScalarToken(sql, { indent, ...(multiLine ? { type: 'BLOCK_LITERAL' as const } : {}) });
  const source = CST.stringify(token);
  const ended = source.endsWith('\n') ? source : `${source}\n`;
  return newline === '\n' ? ended : ended.replace(/\r?\n/g, newline);
}

/** Reads the edited text back: everything as before except the item's gold_sql, which gained `sql`. */
function checkYamlEdit(file: string, id: string, edited: string, before: unknown, oldGolds: readonly string[], sql: string): void {
  const doc = parseDocument(edited, { uniqueKeys: true });
  const after = doc.errors.length === 0 ? (doc.toJS() as unknown) : undefined;
  const expected = withGolds(before, id, [...oldGolds, sql]);
  if (after === undefined || !isDeepStrictEqual(after, expected)) {
    throw refusal(file, id, 'adding the gold here would change more than gold_sql (an unusual layout); add it by hand');
  }
}

/** `data` (a parsed dataset) with item `id`'s gold_sql replaced by `golds`. */
function withGolds(data: unknown, id: string, golds: string[]): unknown {
  const replace = (items: unknown[]): unknown[] => items.map((entry) => (isObject(entry) && entry['id'] === id ? { ...entry, gold_sql: golds } : entry));
  if (Array.isArray(data)) return replace(data);
  if (isObject(data) && Array.isArray(data['items'])) return { ...data, items: replace(data['items'] as unknown[]) };
  return data;
}

function goldList(value: unknown): string[] {
  const plain = isSeq(value) || isScalar(value) ? (value as YamlNode).toJSON() : value;
  if (typeof plain === 'string') return [plain];
  return Array.isArray(plain) ? plain.filter((entry): entry is string => typeof entry === 'string') : [];
}

function scalarValue(node: unknown): unknown {
  return isScalar(node) ? node.value : undefined;
}

// ---------------------------------------------------------------- JSONL

function addGoldToJsonl(file: string, text: string, id: string, sql: string): AddedGold {
  const lines = text.split('\n');
  for (let index = 0; index < lines.length; index += 1) {
    const raw = lines[index]!;
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    let record: unknown;
    try {
      record = JSON.parse(line.replace(/^\uFEFF/, ''));
    } catch {
      continue;
    }
    if (!isObject(record) || record['id'] !== id) continue;
    const span = topLevelValueSpan(line, 'gold_sql');
    if (span === undefined) throw refusal(file, id, `line ${index + 1}: the item has no gold_sql; write its first gold by hand`);
    const old = record['gold_sql'];
    const added = JSON.stringify(sql);
    // The line's own spacing: `"a": 1, "b": 2` or `"a":1,"b":2`.
    const comma = /"\s*:\s/.test(line) ? ', ' : ',';
    let edited: string;
    let goldIndex: number;
    if (typeof old === 'string') {
      edited = `${line.slice(0, span.start)}[${line.slice(span.start, span.end)}${comma}${added}]${line.slice(span.end)}`;
      goldIndex = 1;
    } else if (Array.isArray(old)) {
      const close = line.lastIndexOf(']', span.end - 1);
      edited = `${line.slice(0, close)}${old.length > 0 ? comma : ''}${added}${line.slice(close)}`;
      goldIndex = old.length;
    } else {
      throw refusal(file, id, `line ${index + 1}: gold_sql is neither a SQL string nor a list of them`);
    }
    const reread = JSON.parse(edited.replace(/^\uFEFF/, '')) as unknown;
    const golds = typeof old === 'string' ? [old, sql] : [...(old as unknown[]), sql];
    if (!isDeepStrictEqual(reread, { ...record, gold_sql: golds })) throw refusal(file, id, `line ${index + 1}: the edit would change more than gold_sql; add the gold by hand`);
    lines[index] = raw.endsWith('\r') ? `${edited}\r` : edited;
    return { text: lines.join('\n'), goldIndex };
  }
  throw refusal(file, id, 'no item with this id in the file');
}

/**
 * Where the value of a top-level key of one JSON object text starts and ends (offsets into
 * `line`), or `undefined` when the object has no such key. The line already parsed as JSON, so it
 * is well formed: the scan walks the object's members, skipping each value whole.
 */
function topLevelValueSpan(line: string, key: string): { readonly start: number; readonly end: number } | undefined {
  const skipSpace = (from: number): number => {
    let j = from;
    while (j < line.length && /\s/.test(line[j]!)) j += 1;
    return j;
  };
  let i = skipSpace(line.indexOf('{') + 1);
  while (i < line.length && line[i] === '"') {
    const nameEnd = valueEnd(line, i);
    const name = JSON.parse(line.slice(i, nameEnd)) as string;
    const start = skipSpace(skipSpace(nameEnd) + 1);
    const end = valueEnd(line, start);
    if (name === key) return { start, end };
    i = skipSpace(end);
    if (line[i] !== ',') return undefined;
    i = skipSpace(i + 1);
  }
  return undefined;
}

/** The end offset of the JSON value starting at `start` (a string, a list, or a bare literal). */
function valueEnd(line: string, start: number): number {
  const first = line[start];
  if (first === '"') {
    let j = start + 1;
    while (j < line.length && line[j] !== '"') j += line[j] === '\\' ? 2 : 1;
    return j + 1;
  }
  if (first === '[' || first === '{') {
    let depth = 0;
    let j = start;
    while (j < line.length) {
      const ch = line[j]!;
      if (ch === '"') {
        j += 1;
        while (j < line.length && line[j] !== '"') j += line[j] === '\\' ? 2 : 1;
      } else if (ch === '[' || ch === '{') depth += 1;
      else if (ch === ']' || ch === '}') {
        depth -= 1;
        if (depth === 0) return j + 1;
      }
      j += 1;
    }
    return line.length;
  }
  let j = start;
  while (j < line.length && !/[,}\s]/.test(line[j]!)) j += 1;
  return j;
}

function refusal(file: string, id: string, why: string): LadderError {
  return new LadderError('dataset_invalid', `${file}: item "${id}": cannot add the gold: ${why}`);
}
