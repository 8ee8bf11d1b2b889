// One import registers every text2sql-ladder matcher with vitest's `expect` and adds their types.
import 'text2sql-ladder/vitest';
