/**
 * Tree edit distance between ordered labelled trees (Zhang & Shasha, "Simple fast algorithms for
 * the editing distance between trees and related problems", SIAM J. Comput. 18(6), 1989), with
 * unit costs: inserting, deleting or relabelling one node costs 1. Time O(|T1|·|T2|·min(depth,
 * leaves)²), memory O(|T1|·|T2|).
 *
 * Also the conversion of a normalized sql-parser-cst tree into a labelled tree
 * ({@link toLabelledTree}), and token Jaccard over normalized SQL text.
 */
import { checkAnalysisBudget } from './analysis-budget.js';
import { isSqlNode, keywordText, type SqlNode } from './sql-tree.js';

/** An ordered tree with a label per node. */
export interface LabelledTree {
  readonly label: string;
  readonly children: readonly LabelledTree[];
}

/** Number of nodes in a labelled tree. */
export function treeSize(tree: LabelledTree): number {
  let n = 1;
  for (const c of tree.children) n += treeSize(c);
  return n;
}

/** Fields that carry no structure: positions, raw text and pure-syntax keywords (`selectKw`, …). */
const SKIPPED_FIELDS = new Set(['type', 'range', 'text', 'leading', 'trailing']);

/**
 * Converts a (normalized) CST node into a labelled tree. A node's label is its type followed by its
 * scalar facts: identifier name, literal text, operator (`binary_expr >=`), join operator
 * (`join_expr left join`); children are its child nodes in field order. Fields ending in `Kw`
 * (`selectKw`, `asKw`) are pure syntax and are dropped; other keyword-valued fields fold into the
 * label. So `a > 1` → `binary_expr >` (identifier a, number_literal 1): 3 nodes, and `>` → `>=` is
 * one relabel.
 */
export function toLabelledTree(node: SqlNode): LabelledTree {
  const facts: string[] = [];
  const kids: LabelledTree[] = [];
  for (const [field, value] of Object.entries(node)) {
    if (SKIPPED_FIELDS.has(field) || field.endsWith('Kw')) continue;
    if (field === 'name' || field === 'value') {
      if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') facts.push(String(value).toLowerCase());
      else if (value === null) facts.push('null');
      continue;
    }
    if (typeof value === 'string') {
      facts.push(value.toLowerCase());
    } else if (isKeywordValue(value)) {
      facts.push(keywordText(value));
    } else if (isSqlNode(value)) {
      kids.push(toLabelledTree(value));
    } else if (Array.isArray(value)) {
      for (const entry of value) if (isSqlNode(entry)) kids.push(toLabelledTree(entry));
    }
  }
  return { label: facts.length > 0 ? `${node.type} ${facts.join(' ')}` : node.type, children: kids };
}

function isKeywordValue(value: unknown): boolean {
  if (isSqlNode(value)) return value.type === 'keyword';
  return Array.isArray(value) && value.length > 0 && value.every((v) => isSqlNode(v) && v.type === 'keyword');
}

interface Postorder {
  /** Labels in postorder (0-based). */
  readonly labels: readonly string[];
  /** For each node (postorder index), the postorder index of its leftmost leaf descendant. */
  readonly leftmost: Int32Array;
  /** Keyroots (nodes with no left sibling-free ancestor sharing their leftmost leaf), ascending. */
  readonly keyroots: readonly number[];
}

function postorder(tree: LabelledTree): Postorder {
  const labels: string[] = [];
  const leftmostList: number[] = [];
  const visit = (node: LabelledTree): number => {
    let first = -1;
    for (const c of node.children) {
      const index = visit(c);
      if (first < 0) first = leftmostList[index]!;
    }
    const index = labels.length;
    labels.push(node.label);
    leftmostList.push(first < 0 ? index : first);
    return index;
  };
  visit(tree);
  const leftmost = Int32Array.from(leftmostList);
  // keyroot: the highest node for each distinct leftmost leaf
  const byLeaf = new Map<number, number>();
  for (let i = 0; i < labels.length; i += 1) byLeaf.set(leftmost[i]!, i);
  const keyroots = [...byLeaf.values()].sort((a, b) => a - b);
  return { labels, leftmost, keyroots };
}

/**
 * The number of inner steps {@link treeEditDistance} takes on two trees: for each pair of
 * keyroots, the product of their subtree sizes, summed — (Σ over A's keyroots of their subtree
 * sizes) × (the same for B). Cheap to compute (one postorder walk each), exact, so a caller can
 * refuse a comparison before starting it: deep, narrow trees (a CASE nested 300 deep) cost far
 * more than their node counts suggest.
 */
export function editDistanceSteps(a: LabelledTree, b: LabelledTree): number {
  const sum = (tree: Postorder): number => tree.keyroots.reduce((total, i) => total + (i - tree.leftmost[i]! + 1), 0);
  return sum(postorder(a)) * sum(postorder(b));
}

/**
 * Zhang–Shasha tree edit distance with unit costs (insert 1, delete 1, relabel 1 when labels
 * differ, 0 otherwise).
 * @example
 * treeEditDistance(a(b, c), a(b, d)) // 1
 */
export function treeEditDistance(a: LabelledTree, b: LabelledTree): number {
  const A = postorder(a);
  const B = postorder(b);
  const n = A.labels.length;
  const m = B.labels.length;
  const td = new Float64Array(n * m);
  const fd = new Float64Array((n + 1) * (m + 1));
  const width = m + 1;
  for (const i of A.keyroots) {
    for (const j of B.keyroots) {
      checkAnalysisBudget();
      const li = A.leftmost[i]!;
      const lj = B.leftmost[j]!;
      // forest distance over A[li..i] × B[lj..j]; fd index (x - li + 1, y - lj + 1)
      fd[0] = 0;
      for (let x = li; x <= i; x += 1) fd[(x - li + 1) * width] = fd[(x - li) * width]! + 1;
      for (let y = lj; y <= j; y += 1) fd[y - lj + 1] = fd[y - lj]! + 1;
      for (let x = li; x <= i; x += 1) {
        const row = (x - li + 1) * width;
        const prevRow = (x - li) * width;
        const lx = A.leftmost[x]!;
        for (let y = lj; y <= j; y += 1) {
          const col = y - lj + 1;
          const ly = B.leftmost[y]!;
          const del = fd[prevRow + col]! + 1;
          const ins = fd[row + col - 1]! + 1;
          if (lx === li && ly === lj) {
            const relabel = fd[prevRow + col - 1]! + (A.labels[x] === B.labels[y] ? 0 : 1);
            const value = Math.min(del, ins, relabel);
            fd[row + col] = value;
            td[x * m + y] = value;
          } else {
            const subtree = fd[(lx - li) * width + (ly - lj)]! + td[x * m + y]!;
            fd[row + col] = Math.min(del, ins, subtree);
          }
        }
      }
    }
  }
  return td[(n - 1) * m + (m - 1)]!;
}

/** Splits normalized SQL text into tokens: quoted strings, words/numbers, and operator runs. */
export function sqlTokens(text: string): string[] {
  return text.match(/'(?:[^']|'')*'|[A-Za-z_][A-Za-z0-9_$]*|\d+(?:\.\d+)?|<=|>=|!=|<>|\|\||[^\s\w]/g) ?? [];
}

/**
 * Token Jaccard |A ∩ B| / |A ∪ B| over the token *sets* of two texts (*Text-to-SQL Evals* §4.4);
 * 1 when both are empty.
 */
export function tokenJaccard(a: string, b: string): number {
  const setA = new Set(sqlTokens(a));
  const setB = new Set(sqlTokens(b));
  if (setA.size === 0 && setB.size === 0) return 1;
  let shared = 0;
  for (const token of setA) if (setB.has(token)) shared += 1;
  return shared / (setA.size + setB.size - shared);
}
