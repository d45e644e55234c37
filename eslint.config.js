// Lint rules that protect correctness in an async, multi-package codebase (STYLE.md rule 15):
// no floating promises, no import cycles, no deep imports into another package's src.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import importX from 'eslint-plugin-import-x';

export default tseslint.config(
  {
    ignores: [
      '**/node_modules/**',
      '**/dist/**',
      '.tools/**',
      'apps/console/public/**',
      '**/*.d.ts',
      'test-results/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: {
      parserOptions: {
        projectService: { allowDefaultProject: ['vitest.config.ts', 'vitest.fault.config.ts'] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    plugins: { 'import-x': importX },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: false }],
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
      'import-x/no-cycle': ['error', { maxDepth: 10 }],
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['@switchyard/*/src/*', '@switchyard/*/src', '**/packages/*/src/*', '../../packages/*'],
              message: 'Import another package by its name, never by a path into its src/.',
            },
          ],
        },
      ],
      'no-console': 'error',
    },
  },
  {
    files: [
      '**/main.ts',
      '**/bin/**/*.ts',
      'packages/client/src/cli/**/*.ts',
      'bench/**/*.ts',
      'chaos/src/report.ts',
      '**/test/**/*.ts',
    ],
    rules: { 'no-console': 'off' },
  },
  {
    files: ['**/test/**/*.ts'],
    rules: { '@typescript-eslint/no-non-null-assertion': 'off' },
  },
  {
    // Plain Node scripts that run before dependencies are installed.
    files: ['script/**/*.mjs'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
  },
);
