// Async matchers (toMatchGoldResult) return a promise: a test that forgets `await` passes on its
// own while the failure surfaces later as an unhandled rejection. TypeScript does not catch that;
// typescript-eslint's no-floating-promises does, with type information.
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

export default defineConfig(
  { ignores: ['node_modules/**', 'db/**', 'lint-fixtures/**'] },
  {
    files: ['**/*.ts'],
    extends: [tseslint.configs.base],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
    },
  },
);
