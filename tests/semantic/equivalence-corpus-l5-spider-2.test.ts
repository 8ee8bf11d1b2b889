/**
 * L5 on the equivalence corpus's pairs on five of the reproduced Spider schemas: no equivalent pair refuted, at least 95 % of the
 * near-misses refuted (`nulls: 'observed'`, the defaults otherwise). The corpus is described and
 * checked in equivalence-corpus.test.ts.
 */
import { describeCorpusRun } from './equivalence-corpus/run-corpus.js';

describeCorpusRun(['cre_Doc_Template_Mgt', 'concert_singer', 'museum_visit', 'employee_hire_evaluation', 'tvshow']);
