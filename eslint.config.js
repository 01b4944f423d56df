import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// Folder boundaries: other folders import a top-level folder only through its index.ts.
const deepImport = {
  patterns: [
    {
      regex: '^\\.\\./(\\.\\./)*(primitives|genesis|exchange|evm|consensus|rpc|node|cli|client|explorer)/(?!index\\.ts$).+',
      message: 'Import another top-level folder through its index.ts only.',
    },
  ],
};

export default tseslint.config(
  { ignores: ['node_modules/**', '.tap/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    // A native addon's CommonJS entry (it loads the .node file node-gyp built).
    files: ['native/**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { module: 'writable', require: 'readonly' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['bin/**/*.js', 'node/**/*.js', 'test/**/*.mjs', 'eslint.config.js'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
  },
  {
    files: ['**/*.ts'],
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-restricted-imports': ['error', deepImport],
    },
  },
  {
    // The client is published by itself: it may use primitives/ and nothing else of the repository.
    files: ['client/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [
          ...deepImport.patterns,
          { regex: '^\\.\\./(genesis|exchange|evm|consensus|rpc|node|cli|explorer)/', message: 'client/ depends on primitives/ only.' },
        ],
      }],
    },
  },
  {
    // The page runs in a browser: it takes the client's WebSocket and types, which use no Node API.
    files: ['explorer/page/**/*.ts'],
    languageOptions: { globals: { document: 'readonly', location: 'readonly', window: 'readonly' } },
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [{
          regex: '^\\.\\./(\\.\\./)*(primitives|genesis|exchange|evm|consensus|rpc|node|cli|client)/(?!index\\.ts$|ws\\.ts$|types\\.ts$|errors\\.ts$).+',
          message: 'The page imports client/ws.ts and client/types.ts only (browser-safe).',
        }],
      }],
    },
  },
  {
    // The state machine is pure: no clock, no randomness.
    files: ['exchange/**/*.ts'],
    rules: {
      'no-restricted-properties': [
        'error',
        { object: 'Date', property: 'now', message: 'exchange/ takes time from the block.' },
        { object: 'Math', property: 'random', message: 'exchange/ is deterministic.' },
        { object: 'performance', property: 'now', message: 'exchange/ takes time from the block.' },
      ],
      'no-restricted-globals': ['error', 'parseFloat', 'setTimeout', 'setInterval', 'fetch', 'process'],
    },
  },
);
