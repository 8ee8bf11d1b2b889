/**
 * Loads a dataset file (YAML or JSONL) in the record format of *Text-to-SQL Evals* §12.
 *
 * YAML (`.yaml`, `.yml`, and `.json`, which YAML reads too): either a list of items, or a
 * mapping `{ description?, defaults?, items: [...] }` where `defaults` holds fields shared by
 * every item (an item's own field wins). JSONL (`.jsonl`, `.ndjson`): one JSON item per line;
 * blank lines are skipped.
 *
 * A malformed item is reported (file, line, id) and skipped; the other items still load. A
 * repeated id is reported at its second use, and that item is skipped. Hostile input is a
 * malformed item too, never a crash: a value nested deeper than {@link MAX_ITEM_DEPTH} levels, a
 * YAML alias bomb ("billion laughs": the yaml library stops after 100 alias expansions), or
 * anything else that makes reading one item throw. A byte-order mark at the start of the file is
 * skipped.
 */
import path from 'node:path';
import { LineCounter, isMap, isScalar, isSeq, parseDocument } from 'yaml';
import type { Document, Node as YamlNode, YAMLMap } from 'yaml';
import { LadderError } from '../errors.js';
import type { DatasetError, DatasetItem, LoadedDataset } from './item.js';
import { makeError, makeFileError, validateRecord } from './validate.js';
import type { RecordLocation } from './validate.js';
import { errorText } from '../format.js';
import { readUserTextAsync } from '../files/user-file.js';

export type { DatasetError, DatasetItem, ExpectedBehavior, LoadedDataset, SourceLocation, TagValue } from './item.js';

/** Deepest nesting of a value a dataset item may hold (real items use 3 or 4 levels). */
export const MAX_ITEM_DEPTH = 64;

const YAML_EXTENSIONS = ['.yaml', '.yml', '.json'];
const JSONL_EXTENSIONS = ['.jsonl', '.ndjson'];
const TOP_KEYS = ['description', 'defaults', 'items'];

/**
 * Reads and validates a dataset file.
 *
 * @param file - path of a `.yaml` / `.yml` / `.json` or `.jsonl` / `.ndjson` file; messages
 *   name it as given.
 * @returns the valid items in file order and one error per problem, each message formatted
 *   `<file>:<line>: item "<id>": <problem>`. An `answer` item with no gold SQL is among the
 *   items with `scored: false`.
 * @throws LadderError `dataset_invalid` when the file cannot be read, has an unsupported
 *   extension, or its top level is neither a list of items nor a mapping with `items`.
 */
export async function loadDataset(file: string): Promise<LoadedDataset> {
  if (typeof file !== 'string' || file === '') {
    throw new LadderError('dataset_invalid', `dataset file must be a non-empty path, received ${JSON.stringify(file)}`);
  }
  const extension = path.extname(file).toLowerCase();
  if (!YAML_EXTENSIONS.includes(extension) && !JSONL_EXTENSIONS.includes(extension)) {
    throw new LadderError(
      'dataset_invalid',
      `${file}: unsupported dataset extension "${extension}"; expected one of ${[...YAML_EXTENSIONS, ...JSONL_EXTENSIONS].join(', ')}`,
    );
  }
  let text = await readUserTextAsync(file, { what: 'dataset', code: 'dataset_invalid' });
  // A UTF-8 byte-order mark is not part of the first item.
  if (text.startsWith('\uFEFF')) text = text.slice(1);
  const records = JSONL_EXTENSIONS.includes(extension) ? readJsonl(file, text) : readYaml(file, text);
  return validateAll(file, records);
}

/** A raw record with its location, or a problem that prevented reading it. */
interface RawRecord {
  readonly value?: unknown;
  readonly location: RecordLocation;
  readonly errors: DatasetError[];
}

function validateAll(file: string, records: { records: RawRecord[]; fileErrors: DatasetError[] }): LoadedDataset {
  const items: DatasetItem[] = [];
  const errors: DatasetError[] = [...records.fileErrors];
  const firstLineById = new Map<string, number>();
  for (const record of records.records) {
    if (record.errors.length > 0) {
      errors.push(...record.errors);
      continue;
    }
    const tooDeep = nestingOverLimit(record.value);
    if (tooDeep) {
      errors.push(makeError(file, record.location.line, idOf(record.value), undefined, `the item nests values more than ${MAX_ITEM_DEPTH} levels deep; a dataset item holds plain fields, lists and small mappings`));
      continue;
    }
    let outcome: ReturnType<typeof validateRecord>;
    try {
      outcome = validateRecord(record.value, record.location);
    } catch (error) {
      errors.push(makeError(file, record.location.line, idOf(record.value), undefined, `cannot read this item: ${errorText(error)}`));
      continue;
    }
    errors.push(...outcome.errors);
    if (!outcome.item) continue;
    const earlier = firstLineById.get(outcome.item.id);
    if (earlier !== undefined) {
      errors.push(
        makeError(file, record.location.fieldLine('id'), outcome.item.id, 'id', `duplicate id "${outcome.item.id}": already used by the item at line ${earlier}; this one is skipped`),
      );
      continue;
    }
    firstLineById.set(outcome.item.id, record.location.line);
    items.push(outcome.item);
  }
  errors.sort((a, b) => a.line - b.line);
  return { items, errors };
}

/** True when `value` nests deeper than {@link MAX_ITEM_DEPTH} (iterative: any depth is safe to measure). */
function nestingOverLimit(value: unknown): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop()!;
    if (current === null || typeof current !== 'object') continue;
    if (depth > MAX_ITEM_DEPTH) return true;
    for (const inner of Object.values(current as Record<string, unknown>)) stack.push([inner, depth + 1]);
  }
  return false;
}

/** The item's id when it has a string one (for messages). */
function idOf(value: unknown): string | undefined {
  const id = value !== null && typeof value === 'object' ? (value as Record<string, unknown>)['id'] : undefined;
  return typeof id === 'string' ? id : undefined;
}

function readJsonl(file: string, text: string): { records: RawRecord[]; fileErrors: DatasetError[] } {
  const records: RawRecord[] = [];
  text.split(/\r?\n/).forEach((lineText, index) => {
    const line = index + 1;
    if (lineText.trim() === '') return;
    const location: RecordLocation = { file, line, fieldLine: () => line };
    try {
      records.push({ value: JSON.parse(lineText) as unknown, location, errors: [] });
    } catch (error) {
      const id = /"id"\s*:\s*"([^"\\]*)"/.exec(lineText)?.[1];
      records.push({ location, errors: [makeError(file, line, id, undefined, `invalid JSON: ${(error as Error).message}`)] });
    }
  });
  return { records, fileErrors: [] };
}

function readYaml(file: string, text: string): { records: RawRecord[]; fileErrors: DatasetError[] } {
  const lineCounter = new LineCounter();
  let doc: Document;
  try {
    doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  } catch (error) {
    // The parser itself gave up (e.g. flow collections nested past the stack).
    if (STACK_EXHAUSTED.test(errorText(error))) throw tooDeeplyNested(file, 1);
    throw new LadderError('dataset_invalid', `${file}: cannot parse YAML: ${errorText(error)}`, { cause: error });
  }
  const lineAt = (offset: number): number => lineCounter.linePos(offset).line;
  const lineOf = (node: YamlNode | null | undefined, fallback: number): number => (node?.range ? lineAt(node.range[0]) : fallback);
  const parseErrors = doc.errors.map((e) => ({ offset: e.pos[0], message: e.message.split('\n')[0] ?? e.message }));
  // Nesting past the reader's stack fails at every level it unwinds through: one error for the file.
  const tooDeep = parseErrors.find((e) => STACK_EXHAUSTED.test(e.message));
  if (tooDeep !== undefined) throw tooDeeplyNested(file, lineAt(tooDeep.offset));

  const root = doc.contents as YamlNode | null;
  let itemsNode: YamlNode | null | undefined = root;
  let defaults: YAMLMap | undefined;
  const fileErrors: DatasetError[] = [];
  if (isMap(root)) {
    for (const pair of root.items) {
      const key = isScalar(pair.key) ? String(pair.key.value) : '';
      if (!TOP_KEYS.includes(key)) {
        fileErrors.push(makeFileError(file, lineOf(pair.key as YamlNode, 1), `unknown top-level key "${key}"; a dataset file holds ${TOP_KEYS.join(', ')} or is a list of items`));
      }
    }
    itemsNode = root.get('items', true) as YamlNode | undefined;
    const defaultsNode = root.get('defaults', true) as YamlNode | undefined;
    if (defaultsNode !== undefined && defaultsNode !== null) {
      if (isMap(defaultsNode)) defaults = defaultsNode;
      else fileErrors.push(makeFileError(file, lineOf(defaultsNode, 1), 'defaults must be a mapping of fields shared by every item'));
    }
  }
  if (!isSeq(itemsNode)) {
    if (root === null && parseErrors.length === 0) return { records: [], fileErrors };
    const first = parseErrors[0];
    const detail = first ? ` (${first.message} at line ${lineAt(first.offset)})` : '';
    throw new LadderError('dataset_invalid', `${file}:${lineOf(itemsNode ?? root, 1)}: a dataset file must be a list of items or a mapping with items${detail}`);
  }

  let defaultValues: Record<string, unknown> = {};
  if (defaults) {
    try {
      defaultValues = defaults.toJS(doc) as Record<string, unknown>;
    } catch (error) {
      // An alias bomb in the defaults spoils every item: report it once, read the items without them.
      fileErrors.push(makeFileError(file, lineOf(defaults, 1), `defaults cannot be read: ${errorText(error)}`));
    }
  }
  const defaultLine = (field: string): number | undefined => {
    const pair = defaults?.items.find((p) => isScalar(p.key) && p.key.value === field);
    return pair ? lineOf(pair.key as YamlNode, 1) : undefined;
  };

  const used = new Set<number>();
  const records: RawRecord[] = itemsNode.items.map((node) => {
    const itemNode = node as YamlNode;
    const start = itemNode.range?.[0] ?? 0;
    const end = itemNode.range?.[2] ?? start;
    const line = lineOf(itemNode, 1);
    const fieldLine = (field: string): number => {
      if (isMap(itemNode)) {
        const pair = itemNode.items.find((p) => isScalar(p.key) && p.key.value === field);
        if (pair) return lineOf(pair.key as YamlNode, line);
      }
      return defaultLine(field) ?? line;
    };
    const entryLines = (field: string): number[] | undefined => {
      const value = isMap(itemNode) ? itemNode.items.find((p) => isScalar(p.key) && p.key.value === field)?.value : undefined;
      return isSeq(value) ? value.items.map((entry) => lineOf(entry as YamlNode, fieldLine(field))) : undefined;
    };
    const location: RecordLocation = { file, line, fieldLine, entryLines };
    const inside: { offset: number; message: string }[] = [];
    parseErrors.forEach((e, i) => {
      if (e.offset >= start && e.offset <= end && !used.has(i)) {
        used.add(i);
        inside.push(e);
      }
    });
    if (inside.length > 0) {
      const id = isMap(itemNode) ? scalarString(itemNode.get('id', true) as YamlNode | undefined) : undefined;
      return { location, errors: inside.map((e) => makeError(file, lineAt(e.offset), id, undefined, `YAML: ${e.message}`)) };
    }
    let own: unknown;
    try {
      own = itemNode.toJS(doc);
    } catch (error) {
      if (STACK_EXHAUSTED.test(errorText(error))) throw tooDeeplyNested(file, line);
      // E.g. "Excessive alias count indicates a resource exhaustion attack" (a billion-laughs item).
      const id = isMap(itemNode) ? scalarString(itemNode.get('id', true) as YamlNode | undefined) : undefined;
      return { location, errors: [makeError(file, line, id, undefined, `YAML: ${errorText(error)}`)] };
    }
    const value = own !== null && typeof own === 'object' && !Array.isArray(own) ? withDefaults(defaultValues, own as Record<string, unknown>) : own;
    return { value, location, errors: [] };
  });
  parseErrors.forEach((e, i) => {
    if (!used.has(i)) fileErrors.push(makeFileError(file, lineAt(e.offset), `YAML: ${e.message}`));
  });
  return { records, fileErrors };
}

/** What V8 says when a recursive reader runs out of stack. */
const STACK_EXHAUSTED = /Maximum call stack size exceeded/;

/** The one error of a YAML file nested deeper than the reader can follow. */
function tooDeeplyNested(file: string, line: number): LadderError {
  return new LadderError('dataset_invalid', `${file}:${line}: YAML nested too deeply to read (the reader ran out of stack); a dataset item is a mapping of fields, each a value or a short list`);
}

function scalarString(node: YamlNode | undefined): string | undefined {
  return isScalar(node) && typeof node.value === 'string' ? node.value : undefined;
}

/**
 * Fields of which an item gives one, not both: an item that gives either replaces whichever of
 * them the defaults give, so `db_path` on one item overrides `defaults: { db: … }`.
 */
const EXCLUSIVE_FIELDS: readonly (readonly string[])[] = [['db', 'db_path']];

/** An item's fields over the file's `defaults` (the item's own field wins; see {@link EXCLUSIVE_FIELDS}). */
function withDefaults(defaults: Readonly<Record<string, unknown>>, own: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...defaults };
  for (const group of EXCLUSIVE_FIELDS) {
    if (group.some((field) => field in own)) for (const field of group) delete merged[field];
  }
  return Object.assign(merged, own);
}
