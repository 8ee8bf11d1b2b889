/**
 * Reads the project's Markdown pages for the docs tests: headings as GitHub anchors, relative
 * links, and the fenced code blocks tagged `doctest`. Parsing is marked's lexer and the anchors are
 * github-slugger's, so both follow what GitHub renders.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import GithubSlugger from 'github-slugger';
import { Lexer } from 'marked';
import type { Token, Tokens } from 'marked';

export const ROOT = path.resolve(import.meta.dirname, '..', '..');

/** README.md, every page of docs/, and the READMEs of the bundled folders; paths relative to ROOT. */
export function markdownPages(): string[] {
  const docs = readdirSync(path.join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`);
  return ['README.md', ...docs, 'providers/README.md', 'examples/vitest-app/README.md'];
}

/** A page's tokens, flattened depth-first (list items and blockquotes included). */
function tokensOf(page: string): Token[] {
  const all: Token[] = [];
  const visit = (tokens: readonly Token[]): void => {
    for (const token of tokens) {
      all.push(token);
      const nested = token as { tokens?: Token[]; items?: Token[] };
      if (nested.items) visit(nested.items);
      if (nested.tokens) visit(nested.tokens);
    }
  };
  visit(new Lexer().lex(readFileSync(path.join(ROOT, page), 'utf8')));
  return all;
}

/** The anchors GitHub gives the page's headings (`#` excluded; repeated headings get `-1`, `-2`). */
export function anchorsOf(page: string): Set<string> {
  const slugger = new GithubSlugger();
  const anchors = new Set<string>();
  for (const token of tokensOf(page)) {
    if (token.type === 'heading') anchors.add(slugger.slug((token as Tokens.Heading).text.replace(/`/g, '')));
  }
  return anchors;
}

/** Every link target on the page, as written (`docs/cli.md#check`, `#options`, `https://…`). */
export function linksOf(page: string): string[] {
  return tokensOf(page)
    .filter((token): token is Tokens.Link => token.type === 'link')
    .map((token) => token.href);
}

/** A fenced block tagged `doctest` (info string `console doctest`, `ts doctest`, …). */
export interface DocExample {
  readonly page: string;
  /** 1-based line of the opening fence. */
  readonly line: number;
  /** The block's language: `console` (commands and their output) or `ts`. */
  readonly lang: string;
  /** Words after `doctest` in the info string, e.g. `exit=1`. */
  readonly flags: readonly string[];
  readonly code: string;
  /** The text of a ```` ```text output ```` block right after a `ts` example, if any. */
  readonly expectedOutput: string | undefined;
}

/** The page's `doctest` blocks, in order. */
export function examplesOf(page: string): DocExample[] {
  const text = readFileSync(path.join(ROOT, page), 'utf8');
  const tokens = new Lexer().lex(text);
  const examples: DocExample[] = [];
  let offset = 0;
  tokens.forEach((token, index) => {
    const start = text.indexOf(token.raw, offset);
    offset = start + token.raw.length;
    if (token.type !== 'code') return;
    const [lang = '', tag, ...flags] = ((token as Tokens.Code).lang ?? '').split(/\s+/);
    if (tag !== 'doctest') return;
    const next = tokens.slice(index + 1).find((candidate) => candidate.type !== 'space');
    const output = next?.type === 'code' && (next as Tokens.Code).lang === 'text output' ? (next as Tokens.Code).text : undefined;
    examples.push({
      page,
      line: text.slice(0, start).split('\n').length,
      lang,
      flags,
      code: (token as Tokens.Code).text,
      expectedOutput: output,
    });
  });
  return examples;
}

/** Splits a `console` example into commands (`$ ` lines) and the output each must print. */
export function sessionOf(example: DocExample): { command: string; output: string }[] {
  const steps: { command: string; output: string[] }[] = [];
  for (const line of example.code.split('\n')) {
    if (line.startsWith('$ ')) steps.push({ command: line.slice(2), output: [] });
    else if (steps.length === 0) throw new Error(`${example.page}:${example.line}: a console doctest starts with a "$ " line`);
    else steps.at(-1)!.output.push(line);
  }
  return steps.map((step) => ({ command: step.command, output: step.output.join('\n') }));
}

/** The broken relative links of one page, as `target: why`. */
export function brokenLinks(page: string): string[] {
  const broken: string[] = [];
  for (const href of linksOf(page)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(href)) continue; // https:, mailto:, …
    const [target = '', anchor] = href.split('#', 2);
    const file = target === '' ? page : path.posix.normalize(path.posix.join(path.posix.dirname(page), decodeURI(target)));
    if (file.startsWith('../')) {
      broken.push(`${href}: outside the repository`);
      continue;
    }
    if (!existsSync(path.join(ROOT, file))) {
      broken.push(`${href}: no file ${file}`);
      continue;
    }
    if (anchor !== undefined && file.endsWith('.md') && !anchorsOf(file).has(anchor)) {
      broken.push(`${href}: no heading with anchor #${anchor} in ${file}`);
    }
  }
  return broken;
}

