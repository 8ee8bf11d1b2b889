/**
 * The rules that write the faithfulness judge's labelled answers (scripts/faithfulness-labels.ts
 * writes the file; tests/judge/faithfulness-labels.test.ts checks the file is what they give).
 * Each question's SQL runs on the warehouse fixture's base snapshot; each answer is written from
 * its rows by a rule whose label is known by construction.
 */
import { createLadderRuntime } from '../src/runtime/ladder-runtime.js';
import type { LabelledAnswer } from '../src/dataset/labelled-answers.js';

type Rows = readonly (readonly unknown[])[];

/** A question of one of three shapes: one number, groups by size, or a series in time order. */
interface Question {
  readonly key: string;
  readonly question: string;
  readonly sql: string;
  readonly shape: 'number' | 'groups' | 'series';
  /** What the number counts (`orders`), and what it does not (`customers`): the wrong entity. */
  readonly noun: string;
  readonly wrongNoun: string;
  /** For a number: its unit before it (`$`), if any. */
  readonly unit?: string;
  /** For a number: the sentence that states it (`{v}` the value), and the same sentence about the wrong entity. */
  readonly sentence?: string;
  readonly wrongSentence?: string;
}

const QUESTIONS: readonly Question[] = [
  { key: 'products', question: 'How many products are in the catalogue?', sql: 'SELECT COUNT(*) AS products FROM products', shape: 'number', noun: 'products', wrongNoun: 'brands' },
  { key: 'orders-2024', question: 'How many orders were placed in 2024?', sql: "SELECT COUNT(*) AS orders FROM orders WHERE order_date BETWEEN '2024-01-01' AND '2024-12-31'", shape: 'number', noun: 'orders', wrongNoun: 'customers' },
  { key: 'cancelled-2024', question: 'How many orders were cancelled in 2024?', sql: "SELECT COUNT(*) AS cancelled FROM orders WHERE status = 'CANCELLED' AND order_date BETWEEN '2024-01-01' AND '2024-12-31'", shape: 'number', noun: 'cancelled orders', wrongNoun: 'refunds' },
  { key: 'customers', question: 'How many customers are on file?', sql: 'SELECT COUNT(*) AS customers FROM customers', shape: 'number', noun: 'customers', wrongNoun: 'users' },
  { key: 'refunds', question: 'How many refunds were issued?', sql: 'SELECT COUNT(*) AS refunds FROM refunds', shape: 'number', noun: 'refunds', wrongNoun: 'cancelled orders' },
  { key: 'revenue-2024', question: 'What was the gross order total in 2024?', sql: "SELECT ROUND(SUM(order_total), 2) AS total FROM orders WHERE order_date BETWEEN '2024-01-01' AND '2024-12-31'", shape: 'number', noun: 'in order totals', wrongNoun: 'in refunds', unit: '$', sentence: 'Gross order totals in 2024 came to {v}.', wrongSentence: 'Refunds in 2024 came to {v}.' },
  { key: 'average-order', question: 'What is the average order total?', sql: 'SELECT ROUND(AVG(order_total), 2) AS average FROM orders', shape: 'number', noun: 'per order on average', wrongNoun: 'per customer on average', unit: '$', sentence: 'The average order total is {v}.', wrongSentence: 'The average customer spends {v}.' },
  { key: 'users', question: 'How many user accounts are there?', sql: 'SELECT COUNT(*) AS users FROM users', shape: 'number', noun: 'user accounts', wrongNoun: 'customers' },
  { key: 'category', question: 'How many products are in each category?', sql: 'SELECT category, COUNT(*) AS products FROM products WHERE category IS NOT NULL GROUP BY category ORDER BY products DESC, category', shape: 'groups', noun: 'products', wrongNoun: 'orders' },
  { key: 'totals-by-year', question: 'What were the gross order totals each year, in whole dollars?', sql: "SELECT substr(order_date, 1, 4) AS year, CAST(ROUND(SUM(order_total)) AS INTEGER) AS total FROM orders GROUP BY year ORDER BY year", shape: 'series', noun: 'order totals', wrongNoun: 'refunds' },
  { key: 'channel', question: 'How many orders came through each channel?', sql: 'SELECT channel, COUNT(*) AS orders FROM orders GROUP BY channel ORDER BY orders DESC', shape: 'groups', noun: 'orders', wrongNoun: 'customers' },
  { key: 'segment', question: 'How many customers are in each segment?', sql: 'SELECT segment, COUNT(*) AS customers FROM customers WHERE segment IS NOT NULL GROUP BY segment ORDER BY customers DESC, segment', shape: 'groups', noun: 'customers', wrongNoun: 'orders' },
  { key: 'status', question: 'How many orders are in each status?', sql: 'SELECT status, COUNT(*) AS orders FROM orders GROUP BY status ORDER BY orders DESC', shape: 'groups', noun: 'orders', wrongNoun: 'refunds' },
  { key: 'brand', question: 'How many products does each brand have?', sql: 'SELECT brand, COUNT(*) AS products FROM products GROUP BY brand ORDER BY products DESC', shape: 'groups', noun: 'products', wrongNoun: 'orders' },
  { key: 'region', question: 'How many customers does each region have?', sql: 'SELECT r.name AS region, COUNT(*) AS customers FROM customers c JOIN regions r ON r.region_id = c.region_id GROUP BY r.name ORDER BY customers DESC, region', shape: 'groups', noun: 'customers', wrongNoun: 'orders' },
  { key: 'orders-by-year', question: 'How many orders were placed each year?', sql: "SELECT substr(order_date, 1, 4) AS year, COUNT(*) AS orders FROM orders GROUP BY year ORDER BY year", shape: 'series', noun: 'orders', wrongNoun: 'customers' },
  { key: 'orders-2024-quarters', question: 'How many orders were placed in each quarter of 2024?', sql: "SELECT 'Q' || ((CAST(substr(order_date, 6, 2) AS INTEGER) + 2) / 3) AS quarter, COUNT(*) AS orders FROM orders WHERE order_date BETWEEN '2024-01-01' AND '2024-12-31' GROUP BY quarter ORDER BY quarter", shape: 'series', noun: 'orders', wrongNoun: 'customers' },
  { key: 'refunds-by-year', question: 'How many refunds were issued each year?', sql: "SELECT substr(refund_date, 1, 4) AS year, COUNT(*) AS refunds FROM refunds GROUP BY year ORDER BY year", shape: 'series', noun: 'refunds', wrongNoun: 'orders' },
];

type Made = Omit<LabelledAnswer, 'id' | 'db' | 'snapshot' | 'question' | 'sql' | 'columns' | 'rows'> & { readonly rule: string };

const grounded = (rule: string, answer: string, why: string): Made => ({ rule, answer, label: 'grounded', category: rule, labelSource: 'construction', why });
const edited = (rule: string, answer: string, why: string): Made => ({ rule, answer, label: 'not_grounded', category: rule, labelSource: 'one_edit', why });

function numberAnswers(q: Question, rows: Rows): Made[] {
  const value = Number(rows[0]![0]);
  const integer = Number.isInteger(value);
  const unit = q.unit ?? '';
  const shown = (n: number): string => `${unit}${integer ? n.toLocaleString('en-US') : n.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
  const nudge = integer ? Math.max(3, Math.round(value * 0.12)) : Math.round(value * 0.12 * 100) / 100;
  const say = (v: string, wrong = false): string => (q.sentence !== undefined ? (wrong ? q.wrongSentence! : q.sentence).replace('{v}', v) : `There are ${v} ${wrong ? q.wrongNoun : q.noun}.`);
  const made = [
    grounded('restate', say(shown(value)), 'states the one value the rows hold'),
    grounded('restate', `The answer is ${shown(value)}${q.sentence === undefined ? ` ${q.noun}` : ''}.`, 'states the one value in other words'),
    edited('wrong_number', say(shown(value + nudge)), `the number is ${shown(value + nudge)}, the rows say ${shown(value)}`),
    edited('wrong_entity', say(shown(value), true), `the rows are about ${q.noun.replace(/^in /, '')}, not ${q.wrongNoun.replace(/^in /, '')}`),
    edited('invented_trend', say(shown(value)).replace(/\.$/, ', up sharply from the year before.'), 'the rows hold one value: no earlier period to compare with'),
  ];
  if (value >= 100) {
    const rounded = integer ? Math.round(value / 10) * 10 : Math.round(value);
    made.push(grounded('rounding', say(`about ${unit}${rounded.toLocaleString('en-US')}`), '"about" with the value rounded at its stated precision'));
  }
  return made;
}

function groupAnswers(q: Question, rows: Rows): Made[] {
  const groups = rows.map((row) => ({ name: String(row[0]), n: Number(row[1]) }));
  const first = groups[0]!;
  const second = groups[1]!;
  const last = groups.at(-1)!;
  const beforeLast = groups.at(-2)!;
  // A claim about "the most" or "the fewest" holds only without a tie at that end.
  const made: Made[] = [grounded('list', `${capitalized(q.noun)} by group: ${groups.map((g) => `${g.name} ${g.n}`).join(', ')}.`, 'every row, in order')];
  if (first.n > second.n) {
    made.push(grounded('top_group', `${first.name} has the most ${q.noun}, with ${first.n}.`, 'the first group of rows sorted by size, no tie'));
    made.push(edited('wrong_entity', `${first.name} has the most ${q.wrongNoun}, with ${first.n}.`, `the rows count ${q.noun}, not ${q.wrongNoun}`));
    made.push(edited('swapped_values', `${first.name} has ${second.n} ${q.noun} and ${second.name} has ${first.n}.`, 'the two values are swapped between the groups'));
    made.push(grounded('comparison', `${first.name} has more ${q.noun} than ${second.name} (${first.n} against ${second.n}).`, 'compares two rows in the direction they show'));
    made.push(edited('wrong_comparison', `${second.name} has more ${q.noun} than ${first.name}.`, 'reverses the comparison the rows show'));
  }
  if (last.n < beforeLast.n) {
    made.push(grounded('bottom_group', `${last.name} has the fewest ${q.noun}, with ${last.n}.`, 'the last group of rows sorted by size, no tie'));
    made.push(edited('wrong_direction', `${last.name} has the most ${q.noun}, with ${last.n}.`, `${last.name} has the fewest, not the most`));
  }
  return made;
}

function seriesAnswers(q: Question, rows: Rows): Made[] {
  const points = rows.map((row) => ({ period: String(row[0]), n: Number(row[1]) }));
  const start = points[0]!;
  const end = points.at(-1)!;
  const rose = end.n > start.n;
  const peak = points.reduce((best, point) => (point.n > best.n ? point : best));
  const low = points.reduce((best, point) => (point.n < best.n ? point : best));
  const uniquePeak = points.filter((point) => point.n === peak.n).length === 1;
  if (start.n === end.n) throw new Error(`${q.key}: the series ends where it starts; pick a question with a direction`);
  return [
    ...(uniquePeak ? [grounded('peak', `The busiest period was ${peak.period}, with ${peak.n} ${q.noun}.`, 'the largest point, no tie')] : []),
    grounded('trend', `${capitalized(q.noun)} ${rose ? 'rose' : 'fell'} from ${start.n} in ${start.period} to ${end.n} in ${end.period}.`, 'the first and last points, in the direction they show'),
    grounded('list', `${capitalized(q.noun)} per period: ${points.map((p) => `${p.period} ${p.n}`).join(', ')}.`, 'every row, in order'),
    edited('wrong_direction', `${capitalized(q.noun)} ${rose ? 'fell' : 'rose'} from ${start.n} in ${start.period} to ${end.n} in ${end.period}.`, `the series ${rose ? 'rose' : 'fell'}; the answer says the opposite`),
    edited('wrong_peak', `The busiest period was ${low.period}, with ${low.n} ${q.noun}.`, `${low.period} is the quietest period, not the busiest`),
    edited('wrong_entity', `${capitalized(q.wrongNoun)} ${rose ? 'rose' : 'fell'} from ${start.n} in ${start.period} to ${end.n} in ${end.period}.`, `the rows count ${q.noun}, not ${q.wrongNoun}`),
  ];
}

function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** Runs every question on the warehouse base snapshot and writes the labelled answers as JSONL text. */
export async function buildFaithfulnessLabels(): Promise<string> {
  const runtime = createLadderRuntime();
  try {
    const fixture = await runtime.resolveFixture('warehouse');
    const base = fixture.snapshots.find((snapshot) => snapshot.name === 'base')!;
    const lines: string[] = [];
    for (const q of QUESTIONS) {
      const outcome = await runtime.engine().execute({ db: base.path, sql: q.sql });
      if (!outcome.ok) throw new Error(`${q.key}: ${outcome.error.message}`);
      const rows = outcome.result.rows.map((row) => row.map((cell) => (typeof cell === 'bigint' ? Number(cell) : cell)));
      const made = q.shape === 'number' ? numberAnswers(q, rows) : q.shape === 'groups' ? groupAnswers(q, rows) : seriesAnswers(q, rows);
      const count = new Map<string, number>();
      for (const { rule, ...answer } of made) {
        const n = (count.get(rule) ?? 0) + 1;
        count.set(rule, n);
        const entry: LabelledAnswer = { id: `fa-${q.key}/${rule}${n > 1 ? `-${n}` : ''}`, db: 'warehouse', snapshot: 'base', question: q.question, sql: q.sql, columns: outcome.result.columns, rows, ...answer };
        lines.push(JSON.stringify(entry));
      }
    }
    return `${lines.join('\n')}\n`;
  } finally {
    await runtime.close();
  }
}
