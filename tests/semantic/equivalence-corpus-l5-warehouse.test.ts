/**
 * L5 on the equivalence corpus's pairs on the bundled warehouse fixture (its three snapshots and 25 invariants): no equivalent pair refuted, at least 95 % of the
 * near-misses refuted (`nulls: 'observed'`, the defaults otherwise). The corpus is described and
 * checked in equivalence-corpus.test.ts.
 */
import { describeCorpusRun } from './equivalence-corpus/run-corpus.js';

describeCorpusRun(['warehouse']);
