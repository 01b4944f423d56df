import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// Folder boundaries: other folders import a top-level folder only through its index.ts.
const deepImport = {
  patterns: [
    {
      regex: '^\\.\\./(\\.\\./)*(primitives|genesis|exchange|evm|consensus|rpc|node|cli)/(?!index\\.ts$).+',
      message: 'Import another top-level folder through its index.ts only.',
    },
  ],
};

export default tseslint.config(
  { ignores: ['node_modules/**', '.tap/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['bin/**/*.js', 'node/**/*.js', 'eslint.config.js'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly' } },
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
