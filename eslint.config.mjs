// ESLint flat config: `npm run lint` and the lint stage of `npm test` (scripts/test.mjs) run it with
// Prettier's check. typescript-eslint's recommended rules without type information: `tsc --noEmit`
// already type-checks, and the type-aware rules would double the time on a 2-core machine.
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

// What the build and test scripts (.mjs, plain Node) use of Node's globals; add one when a script
// needs it (ESLint's no-undef checks them; tsc checks the .ts files).
const NODE_GLOBALS = Object.fromEntries(
  ['Buffer', 'clearInterval', 'clearTimeout', 'console', 'process', 'setInterval', 'setTimeout', 'URL'].map((name) => [name, 'readonly']),
);

export default defineConfig(
  { ignores: ['dist/', 'out/', '.vscode-test/', 'node_modules/'] },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    rules: {
      // Types only through `import type`, as tsconfig's verbatimModuleSyntax has the bundle expect;
      // also in type positions (no `import('x').T`).
      '@typescript-eslint/consistent-type-imports': ['error', { prefer: 'type-imports', fixStyle: 'separate-type-imports' }],
      // A leading underscore marks a parameter or binding kept on purpose (a callback's signature,
      // a destructured rest).
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          caughtErrorsIgnorePattern: '^_',
          destructuredArrayIgnorePattern: '^_',
          ignoreRestSiblings: true,
        },
      ],
      // Off: matching control characters is the point where it is done (header values, terminal-safe text, ANSI escapes).
      'no-control-regex': 'off',
    },
  },
  {
    files: ['test/**/*.ts'],
    rules: {
      // Off in tests: their patterns match YAML text, where literal indentation reads like the document.
      'no-regex-spaces': 'off',
    },
  },
  {
    // src/core is shared by the extension, the command line and the local server: never `vscode`
    // (test/unit/coreIsolation.test.ts checks the same in the test suite).
    files: ['src/core/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            { name: 'vscode', message: 'src/core runs outside VS Code (command line, local server): pass what it needs in instead.' },
          ],
        },
      ],
    },
  },
  {
    files: ['**/*.mjs'],
    languageOptions: { globals: NODE_GLOBALS },
  },
  {
    // CommonJS configuration (dependency-cruiser reads .cjs): require and module are its way.
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { ...NODE_GLOBALS, module: 'writable', require: 'readonly' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
