/**
 * The equality key of a JSON document, as `jsonb` compares: object keys in any order (the last of
 * repeated keys wins), numbers by exact value (`1.0` = `1`, `1e2` = `100`), strings by their
 * characters whatever their escapes, insignificant white space ignored. A `json` and a `jsonb`
 * cell of the same document are equal. Text that is not JSON keeps a key of its own text.
 */
import { decimalText, parseDecimal } from './exact-decimal.js';

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const STRING = /"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/y;
const SPACE = /[ \t\n\r]*/y;

/** Thrown inside the reader for text that is not JSON. */
class NotJson extends Error {}

/**
 * The canonical text of a JSON document (see the module doc), or `undefined` when `text` is not JSON.
 * @example canonicalJson('{"b": 1.0, "a": [true, null]}') // '{"a":[true,null],"b":1}'
 */
export function canonicalJson(text: string): string | undefined {
  let at = 0;
  const skip = (): void => {
    SPACE.lastIndex = at;
    SPACE.exec(text);
    at = SPACE.lastIndex;
  };
  const sticky = (pattern: RegExp): string | undefined => {
    pattern.lastIndex = at;
    const match = pattern.exec(text);
    if (match === null) return undefined;
    at = pattern.lastIndex;
    return match[0];
  };
  const value = (): string => {
    skip();
    const head = text[at];
    if (head === '{') {
      at += 1;
      const members = new Map<string, string>();
      skip();
      if (text[at] === '}') {
        at += 1;
        return '{}';
      }
      for (;;) {
        skip();
        const key = sticky(STRING);
        if (key === undefined) throw new NotJson();
        skip();
        if (text[at] !== ':') throw new NotJson();
        at += 1;
        const name = JSON.parse(key) as string;
        members.delete(name);
        members.set(name, value());
        skip();
        if (text[at] === ',') {
          at += 1;
          continue;
        }
        if (text[at] !== '}') throw new NotJson();
        at += 1;
        break;
      }
      const keys = [...members.keys()].sort();
      return `{${keys.map((key) => `${JSON.stringify(key)}:${members.get(key)!}`).join(',')}}`;
    }
    if (head === '[') {
      at += 1;
      const items: string[] = [];
      skip();
      if (text[at] === ']') {
        at += 1;
        return '[]';
      }
      for (;;) {
        items.push(value());
        skip();
        if (text[at] === ',') {
          at += 1;
          continue;
        }
        if (text[at] !== ']') throw new NotJson();
        at += 1;
        break;
      }
      return `[${items.join(',')}]`;
    }
    if (head === '"') {
      const literal = sticky(STRING);
      if (literal === undefined) throw new NotJson();
      return JSON.stringify(JSON.parse(literal) as string);
    }
    for (const word of ['true', 'false', 'null']) {
      if (text.startsWith(word, at)) {
        at += word.length;
        return word;
      }
    }
    const number = sticky(NUMBER);
    if (number === undefined) throw new NotJson();
    return decimalText(parseDecimal(number)!);
  };
  try {
    const canonical = value();
    skip();
    return at === text.length ? canonical : undefined;
  } catch (error) {
    if (error instanceof NotJson || error instanceof SyntaxError || error instanceof RangeError) return undefined;
    throw error;
  }
}
