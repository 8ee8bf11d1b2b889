import { describe, expect, it } from 'vitest';
import { LadderError } from '../src/errors.js';
import { describeReceived, invalidValue, optionReader, rejectUnknownKeys, suggestName, unknownKeyMessage } from '../src/options.js';

describe('describeReceived: kind first, then the value', () => {
  it.each<[unknown, string]>([
    [undefined, 'undefined'],
    [null, 'null'],
    ['5000', 'a string ("5000")'],
    ['x'.repeat(50), `a string ("${'x'.repeat(40)}…")`],
    [0, 'a number (0)'],
    [Number.NaN, 'a number (NaN)'],
    [true, 'a boolean (true)'],
    [5n, 'a bigint (5n)'],
    [[], 'an array ([])'],
    [['a', 2n], 'an array (["a","2n"])'],
    [{ a: 1 }, 'an object'],
    [() => 1, 'a function'],
    [new Uint8Array([1]), 'a Uint8Array'],
  ])('%o → %s', (value, text) => {
    expect(describeReceived(value)).toBe(text);
  });
});

describe('suggestName: the one did-you-mean rule', () => {
  const known = ['timeoutMs', 'policy', 'budgetFactor', 'doubleQuotes'];
  it.each<[string, Record<string, string>, string | undefined]>([
    ['orderMatters', { orderMatters: 'rowOrder' }, 'rowOrder'], // a renamed option first
    ['timeout_ms', {}, 'timeoutMs'], // case and separators
    ['DOUBLE-QUOTES', {}, 'doubleQuotes'],
    ['budget', {}, 'budgetFactor'], // a cut-off name
    ['polcy', {}, 'policy'], // Levenshtein, within max(2, ⌊5/3⌋) edits
    ['timeotMs', {}, 'timeoutMs'],
    ['colour', {}, undefined], // nothing close
    ['toString', {}, undefined], // an Object.prototype name is not a rename
  ])('%s → %s', (name, renamed, expected) => {
    expect(suggestName(name, known, renamed)).toBe(expected);
  });
});

describe('unknown keys: one message format', () => {
  it('names the key with its prefix, the suggestion and the known keys', () => {
    expect(unknownKeyMessage('timeotMs', ['timeoutMs', 'policy'], { prefix: 'config.' })).toBe('config.timeotMs is not an option (did you mean config.timeoutMs?); known options: timeoutMs, policy');
    expect(unknownKeyMessage('colour', ['id', 'question'], { noun: 'field' })).toBe('colour is not a field; known fields: id, question');
    expect(unknownKeyMessage('xyzw', ['a'], { noun: 'argument' })).toBe('xyzw is not an argument; known arguments: a');
  });

  it('rejectUnknownKeys throws the first unknown key with the given code', () => {
    expect(() => rejectUnknownKeys({ policy: 1, polcy: 2 }, ['policy'], { prefix: 'config.' })).toThrow(
      new LadderError('invalid_option', 'config.polcy is not an option (did you mean config.policy?); known options: policy'),
    );
    expect(() => rejectUnknownKeys({ a: 1 }, ['b'], { code: 'dataset_invalid' })).toThrow(expect.objectContaining({ code: 'dataset_invalid' }));
    expect(() => rejectUnknownKeys(undefined, [])).not.toThrow();
  });

  it('invalidValue: `<name> must be <expected>; received <value>`', () => {
    expect(invalidValue('--preset', 'one of default, spider', 'x')).toEqual(new LadderError('invalid_option', '--preset must be one of default, spider; received a string ("x")'));
  });
});

describe('optionReader: typed readers over one record', () => {
  const read = optionReader({ n: 5, z: 0, f: 0.5, s: 'x', e: '', b: true, y: 'yes', l: ['a', 'b'], d: ['a', 'a'], o: { k: 1 }, nul: null }, { prefix: 'config.' });

  it.each<[string, () => unknown, unknown]>([
    ['positiveInteger', () => read.positiveInteger('n', 'ms'), 5],
    ['number in range', () => read.number('f', { min: 0, max: 1 }), 0.5],
    ['string', () => read.string('s'), 'x'],
    ['boolean', () => read.boolean('b'), true],
    ['oneOf', () => read.oneOf('s', ['x', 'y']), 'x'],
    ['stringList', () => read.stringList('l'), ['a', 'b']],
    ['a single string as a list of one', () => read.stringList('s', { single: true }), ['x']],
    ['record', () => read.record('o'), { k: 1 }],
    ['absent', () => read.boolean('missing'), undefined],
    ['null is absent (YAML `key:`)', () => read.string('nul'), undefined],
  ])('%s', (_name, get, value) => {
    expect(get()).toEqual(value);
  });

  it.each<[string, () => unknown, string]>([
    ['positiveInteger', () => read.positiveInteger('z', 'ms'), 'config.z must be a positive integer (ms); received a number (0)'],
    ['number in range', () => read.number('n', { min: 0, max: 1 }), 'config.n must be a number in [0, 1]; received a number (5)'],
    ['string', () => read.string('e'), 'config.e must be a non-empty string; received a string ("")'],
    ['boolean', () => read.boolean('y'), 'config.y must be true or false; received a string ("yes")'],
    ['oneOf', () => read.oneOf('y', ['legacy', 'strict']), 'config.y must be one of "legacy", "strict"; received a string ("yes")'],
    ['stringList', () => read.stringList('n'), 'config.n must be a list of non-empty strings; received a number (5)'],
    ['non-empty list', () => optionReader({ l: [] }).stringList('l', { nonEmpty: true }), 'l must be a non-empty list of non-empty strings; received an array ([])'],
    ['distinct list', () => read.stringList('d', { distinct: true }), 'config.d must be a list of non-empty strings without repeats ("a" is listed twice); received an array (["a","a"])'],
    ['record', () => read.record('s'), 'config.s must be an object; received a string ("x")'],
  ])('%s rejects the wrong kind', (_name, get, message) => {
    expect(get).toThrow(new LadderError('invalid_option', message));
  });

  it('scope: code, a file:line before every message, and null as a value when asked', () => {
    const vars = optionReader({ snapshots: [] }, { code: 'dataset_invalid', at: 'd.yaml:7: ' });
    expect(() => vars.stringList('snapshots', { nonEmpty: true })).toThrow(new LadderError('dataset_invalid', 'd.yaml:7: snapshots must be a non-empty list of non-empty strings; received an array ([])'));
    expect(() => optionReader({ x: null }, { nullIsAbsent: false }).boolean('x')).toThrow('x must be true or false; received null');
    expect(() => optionReader(42, { prefix: 'config.' })).toThrow(new LadderError('invalid_option', 'config must be an object; received a number (42)'));
  });
});
