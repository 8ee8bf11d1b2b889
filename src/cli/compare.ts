/**
 * `text2sql-ladder compare BASE CAND`: a baseline run against a candidate run, item by item, with
 * paired statistics and a CI gate.
 *
 *   text2sql-ladder compare out/eval.json#weak out/eval.json#strong
 *   text2sql-ladder compare base.jsonl cand.jsonl --fail-on significant-regression --min end_to_end=0.9 \
 *     --required required.txt --markdown comment.md
 *
 * BASE and CAND are promptfoo result files (`FILE#COLUMN` picks a provider column) or
 * `text2sql-ladder spider --out` JSONL files, detected from their content (src/report/read-run.ts).
 * The report (src/report/compare-runs.ts, render-comparison.ts) goes to stdout as a table, JSON or
 * Markdown; `--markdown FILE` / `--json FILE` also write those. Identity differences (dataset,
 * snapshot checksums, policy, a missing identity) and items in one run only are warnings on
 * stderr; with `--strict` a difference is an error.
 *
 * Exit status: 0 when the gate passes (or none is configured), 1 when it fails, 2 on misuse (bad
 * flags, unreadable or unrecognised files, an unknown column or metric, runs sharing no item) and,
 * with `--strict`, when the runs are not comparable. Every error is one line on stderr.
 */
import { writeFileSync } from 'node:fs';
import { InvalidArgumentError, type Command } from 'commander';
import { LadderError } from '../errors.js';
import { applyCliConventions, cliIoOf, setExitCode } from './cli-io.js';
import { compareRuns, type RequiredItemSource } from '../report/compare-runs.js';
import { evaluateGate, FAIL_ON_VALUES, type FailOn } from '../report/comparison-gate.js';
import { DEFAULT_BOOTSTRAP_REPLICATES, DEFAULT_BOOTSTRAP_SEED } from '../report/paired-statistics.js';
import { readRun } from '../report/read-run.js';
import { comparisonJson, renderComparisonMarkdown, renderComparisonText } from '../report/render-comparison.js';
import { readUserText } from '../files/user-file.js';

/** Output formats of `--format`. */
export const COMPARE_FORMATS = ['table', 'json', 'markdown'] as const;
/** One of {@link COMPARE_FORMATS}. */
export type CompareFormat = (typeof COMPARE_FORMATS)[number];

/** Parsed flags of the `compare` command. */
export interface CompareCommandOptions {
  readonly failOn?: FailOn;
  /** Metrics `--fail-on` looks at. Default `['end_to_end']`. */
  readonly gateMetric?: readonly string[];
  /** Metric → minimum candidate pass rate in [0, 1]. */
  readonly min?: Readonly<Record<string, number>>;
  /** File of required item ids. */
  readonly required?: string;
  /** Tags marking required items. Default `['required']`. */
  readonly requiredTag?: readonly string[];
  /** Default 0.05. */
  readonly alpha?: number;
  readonly midP?: boolean;
  /** Bootstrap replicates; 0 off. Default 10 000. */
  readonly bootstrap?: number;
  readonly seed?: number;
  /** stdout format. Default `table`. */
  readonly format?: CompareFormat;
  /** Also write Markdown here. */
  readonly markdown?: string;
  /** Also write JSON here. */
  readonly json?: string;
  /** Items per list in the table and Markdown; 0 all. Default 20. */
  readonly listLimit?: number;
  readonly strict?: boolean;
}

/** Where the command writes (injectable for tests). */
export interface CompareCommandIo {
  readonly stdout: { write(text: string): unknown };
  readonly stderr: { write(text: string): unknown };
}

/** Registers `text2sql-ladder compare` on the program. */
export function registerCompareCommand(program: Command): void {
  const command = program.command('compare');
  applyCliConventions(command)
    .description('Compare a candidate run with a baseline item by item: rates, regressions, exact McNemar test, paired bootstrap CI, CI gate')
    .argument('<base>', 'baseline run: a promptfoo result (FILE.json, FILE.json#COLUMN) or a text2sql-ladder spider JSONL')
    .argument('<cand>', 'candidate run, same forms')
    .option('--fail-on <kind>', `fail the gate on any regression, or on a significant one: ${FAIL_ON_VALUES.join(', ')}`, parseChoice('--fail-on', FAIL_ON_VALUES))
    .option('--gate-metric <list>', 'metrics --fail-on looks at, comma-separated (default end_to_end)', parseList('--gate-metric'))
    .option('--min <list>', 'minimum candidate pass rates, e.g. end_to_end=0.9,L3_safety=1 (a rate or a percentage; repeatable)', (value: string, previous: Record<string, number> | undefined) => ({ ...previous, ...parseMinimums(value) }))
    .option('--required <file>', 'file of item ids (one per line, # comments) that must pass end_to_end in the candidate')
    .option('--required-tag <list>', 'tags that mark required items, comma-separated (default required; matches tag or tag:true)', parseList('--required-tag'))
    .option('--alpha <p>', 'significance level of --fail-on significant-regression (default 0.05)', parseProbability)
    .option('--mid-p', 'use the mid-p McNemar value in the gate and show it in the report', false)
    .option('--bootstrap <n>', `paired bootstrap replicates per metric and tag, 0 for none (default ${DEFAULT_BOOTSTRAP_REPLICATES})`, parseCount('--bootstrap', 0, 10_000_000))
    .option('--seed <n>', `bootstrap seed (default ${DEFAULT_BOOTSTRAP_SEED})`, parseCount('--seed', 0, 2 ** 32 - 1))
    .option('--format <name>', `stdout format: ${COMPARE_FORMATS.join(', ')}`, parseChoice('--format', COMPARE_FORMATS), 'table' as CompareFormat)
    .option('--markdown <file>', 'also write the Markdown report (for a pull-request comment) to this file')
    .option('--json <file>', 'also write the JSON report to this file')
    .option('--list-limit <n>', 'items listed per improvement/regression list in the table and Markdown, 0 for all (default 20)', parseCount('--list-limit', 0, 1_000_000))
    .option('--strict', 'runs that differ in dataset, snapshot checksums or policy (or record no identity) are an error (exit 2), not a warning', false)
    .action((base: string, cand: string, options: CompareCommandOptions) => {
      setExitCode(command, runCompareCommand(base, cand, options, cliIoOf(command)));
    });
}

/**
 * Runs the comparison. Returns the exit status: 0 gate passed, 1 gate failed, 2 misuse (or, with
 * `strict`, runs that are not comparable). Misuse writes one `error: …` line to stderr and no
 * report.
 */
export function runCompareCommand(base: string, cand: string, options: CompareCommandOptions, io: CompareCommandIo): number {
  try {
    const cache = new Map();
    const baseline = readRun(base, cache);
    const candidate = readRun(cand, cache);
    const requiredIds = options.required === undefined ? [] : readRequiredIds(options.required);
    const comparison = compareRuns(baseline, candidate, {
      ...(options.bootstrap !== undefined ? { bootstrapReplicates: options.bootstrap } : {}),
      ...(options.seed !== undefined ? { seed: options.seed } : {}),
      requiredIds,
      ...(options.requiredTag !== undefined ? { requiredTags: options.requiredTag } : {}),
    });
    const gate = evaluateGate(comparison, {
      ...(options.failOn !== undefined ? { failOn: options.failOn } : {}),
      ...(options.gateMetric !== undefined ? { gateMetrics: options.gateMetric } : {}),
      ...(options.alpha !== undefined ? { alpha: options.alpha } : {}),
      ...(options.min !== undefined ? { min: options.min } : {}),
      midP: options.midP === true,
    });

    const blocking = comparison.identityDifferences.filter((difference) => difference.blocking);
    if (options.strict === true && blocking.length > 0) {
      io.stderr.write(`error: the runs are not comparable (--strict): ${blocking.map((difference) => difference.message).join('; ')}\n`);
      return 2;
    }
    for (const difference of blocking) io.stderr.write(`warning: ${difference.message}\n`);
    const { baselineOnly, candidateOnly } = comparison.items;
    if (baselineOnly.length > 0) io.stderr.write(`warning: ${baselineOnly.length} item${baselineOnly.length === 1 ? '' : 's'} only in the baseline, not compared: ${someIds(baselineOnly)}\n`);
    if (candidateOnly.length > 0) io.stderr.write(`warning: ${candidateOnly.length} item${candidateOnly.length === 1 ? '' : 's'} only in the candidate, not compared: ${someIds(candidateOnly)}\n`);

    const render = { midP: options.midP === true, ...(options.listLimit !== undefined ? { listLimit: options.listLimit } : {}) };
    const json = (): string => `${JSON.stringify(comparisonJson(comparison, gate), null, 2)}\n`;
    const markdown = (): string => renderComparisonMarkdown(comparison, gate, render);
    if (options.markdown !== undefined) writeOutput(options.markdown, markdown(), '--markdown');
    if (options.json !== undefined) writeOutput(options.json, json(), '--json');
    const format = options.format ?? 'table';
    io.stdout.write(format === 'json' ? json() : format === 'markdown' ? markdown() : renderComparisonText(comparison, gate, render));
    return gate.pass ? 0 : 1;
  } catch (error) {
    if (error instanceof LadderError) {
      io.stderr.write(`error: ${error.message.split('\n')[0]}\n`);
      return 2;
    }
    throw error;
  }
}

/**
 * Reads a file of required item ids: one id per line (surrounding spaces trimmed), blank lines and
 * lines starting with `#` skipped.
 * @throws LadderError `input_invalid` when the file cannot be read or holds no id.
 */
export function readRequiredIds(file: string): RequiredItemSource[] {
  const text = readUserText(file, { what: 'file of required ids', prefix: '--required: ' });
  const ids: RequiredItemSource[] = [];
  text.split(/\r?\n/).forEach((line, index) => {
    const id = line.trim();
    if (id === '' || id.startsWith('#')) return;
    ids.push({ id, source: `${file}:${index + 1}` });
  });
  if (ids.length === 0) throw new LadderError('input_invalid', `--required: ${file} holds no item id (one id per line; # starts a comment)`);
  return ids;
}

function writeOutput(file: string, text: string, flag: string): void {
  try {
    writeFileSync(file, text);
  } catch (error) {
    throw new LadderError('invalid_option', `${flag}: cannot write ${file}: ${(error as Error).message}`, { cause: error });
  }
}

function someIds(ids: readonly string[]): string {
  return ids.length <= 10 ? ids.join(', ') : `${ids.slice(0, 10).join(', ')}, … (${ids.length - 10} more)`;
}

function parseChoice<T extends string>(flag: string, values: readonly T[]): (value: string) => T {
  return (value: string): T => {
    if (!values.includes(value as T)) throw new InvalidArgumentError(`${flag} must be one of ${values.join(', ')}`);
    return value as T;
  };
}

function parseList(flag: string): (value: string) => string[] {
  return (value: string): string[] => {
    const list = value.split(',').map((entry) => entry.trim()).filter((entry) => entry !== '');
    if (list.length === 0) throw new InvalidArgumentError(`${flag} needs at least one name`);
    return list;
  };
}

function parseCount(flag: string, low: number, high: number): (value: string) => number {
  return (value: string): number => {
    const n = Number(value);
    if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n < low || n > high) throw new InvalidArgumentError(`${flag} must be an integer from ${low} to ${high}`);
    return n;
  };
}

function parseProbability(value: string): number {
  const p = Number(value);
  if (value.trim() === '' || !Number.isFinite(p) || p <= 0 || p >= 1) throw new InvalidArgumentError('--alpha must be a number between 0 and 1 (exclusive)');
  return p;
}

/** `end_to_end=0.9,L3_safety=1` or `end_to_end=90%` → { end_to_end: 0.9, L3_safety: 1 }. */
export function parseMinimums(value: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const part of value.split(',').map((entry) => entry.trim()).filter((entry) => entry !== '')) {
    const match = /^([^=\s]+)\s*=\s*([0-9]*\.?[0-9]+)(%?)$/.exec(part);
    if (!match) throw new InvalidArgumentError(`expected metric=rate (e.g. end_to_end=0.9 or end_to_end=90%); received "${part}"`);
    const rate = Number(match[2]) / (match[3] === '%' ? 100 : 1);
    if (rate < 0 || rate > 1) throw new InvalidArgumentError(`the rate of ${match[1]} must be from 0 to 1 (or 0% to 100%); received "${part}"`);
    out[match[1]!] = rate;
  }
  if (Object.keys(out).length === 0) throw new InvalidArgumentError('expected metric=rate (e.g. end_to_end=0.9)');
  return out;
}
