// Lint for the whole tree: typescript-eslint's type-aware rules that catch real bugs in this code
// (promises left floating, switches that miss a case, type-only imports), and the layering of
// docs/ARCHITECTURE.md as import restrictions. A rule turned off says why, in one line.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const layer = (from, patterns) => ({
  files: [`${from}/**/*.ts`],
  rules: { '@typescript-eslint/no-restricted-imports': ['error', { patterns }] },
});

export default tseslint.config(
  {
    ignores: [
      'out/**',
      'dist/**',
      'node_modules/**',
      '.stryker-tmp/**',
      'reports/**',
      'test/unit/analysis/fixtures/**',
      'test/integration/fixtures/**',
      '**/*.js',
      '**/*.mjs',
      '**/*.cjs',
      // The jstests harness is plain JavaScript and linted as such (the block below).
      '!scripts/jstests/*.js',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // node:test's describe/it return promises that the runner itself awaits.
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          allowForKnownSafeCalls: [
            {
              from: 'package',
              package: 'node:test',
              name: ['describe', 'it', 'test', 'suite', 'before', 'after', 'beforeEach', 'afterEach'],
            },
          ],
        },
      ],
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      // Array.isArray on `unknown` narrows to any[] (a TypeScript quirk), and every value read from a document is `unknown` here: these flag checked code.
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      // Document values are `unknown`; String() of one appears only in messages about a malformed value, where its own form is the point.
      '@typescript-eslint/no-base-to-string': 'off',
      // Method references here are plain functions in tables, or are invoked with .call (hasOwn.call): none reads a `this` it lost.
      '@typescript-eslint/unbound-method': 'off',
      // Unused parameters named with a leading underscore keep a signature (a listener, an interface method).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
    },
  },
  {
    // Switches over typeof, BSON type names and babel node types handle the cases that matter and let the rest fall through on purpose.
    files: ['src/engine/**/*.ts', 'src/analysis/**/*.ts'],
    rules: { '@typescript-eslint/switch-exhaustiveness-check': 'off' },
  },
  {
    // Tests and benches poke at replies and stand-ins without types on purpose, and keep async signatures of the seams they drive.
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/require-await': 'off',
      // A fresh require() of a built bundle is what these tests measure (activation, the CLI).
      '@typescript-eslint/no-require-imports': 'off',
    },
  },
  {
    // The jstests harness: CommonJS run by node; legacy-shell.js runs inside the shell's vm context.
    files: ['scripts/jstests/*.js'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      ...tseslint.configs.disableTypeChecked.languageOptions,
      parserOptions: { projectService: false, program: null, project: false },
      sourceType: 'commonjs',
      globals: Object.fromEntries(
        ['require', 'module', '__dirname', 'process', 'console', 'Buffer', 'setTimeout', 'clearTimeout', 'print'].map(
          (name) => [name, 'readonly'],
        ),
      ),
    },
    rules: { ...tseslint.configs.disableTypeChecked.rules, '@typescript-eslint/no-require-imports': 'off' },
  },
  // The layering (docs/ARCHITECTURE.md): vscode only in the extension; the engine imports neither
  // the shell nor the extension; the analysis does not reach into the shell.
  layer('src/engine', [
    { group: ['vscode'], message: 'The engine has no vscode: it is tested directly with node:test.' },
    // (src/storage, the file store, is not listed: a relative path cannot tell it from the engine's own storage/ folder; the cycles tool watches that direction.)
    {
      group: ['**/shell/**', '**/extension/**', '**/cli/**', '**/analysis/**'],
      message: 'The engine depends on nothing above it (docs/ARCHITECTURE.md, Layers).',
    },
  ]),
  layer('src/shell', [
    { group: ['vscode'], message: 'The shell has no vscode: the CLI and the engine host run it.' },
    {
      group: ['**/extension/**', '**/analysis/**', '**/cli/**'],
      message: 'The shell depends on the engine and formats only.',
    },
  ]),
  layer('src/analysis', [
    { group: ['vscode'], message: 'The analysis has no vscode: the CLI check runs it.' },
    {
      group: ['**/shell/**', '**/extension/**', '**/cli/**', '**/storage/**'],
      message: 'The analysis uses engine rules and formats only.',
    },
  ]),
  layer('src/storage', [
    { group: ['vscode'], message: 'Storage has no vscode.' },
    {
      group: ['**/extension/**', '**/shell/**', '**/cli/**', '**/analysis/**'],
      message: 'Storage sits beside the engine.',
    },
  ]),
  layer('src/formats', [
    { group: ['vscode'], message: 'Formats are pure text.' },
    {
      group: ['**/engine/**', '**/shell/**', '**/extension/**', '**/analysis/**', '**/storage/**', '**/cli/**'],
      message: 'Formats import nothing of the project.',
    },
  ]),
  layer('src/wire', [
    {
      group: ['vscode'],
      message: 'The wire endpoint is plain Node: the CLI, test suites and the engine host serve it.',
    },
    {
      group: ['**/extension/**', '**/shell/**', '**/cli/**', '**/analysis/**'],
      message: 'The wire endpoint serves the engine and its storage only.',
    },
  ]),
  layer('src/compatibility', [
    {
      group: ['vscode', '**/extension/**', '**/shell/**', '**/cli/**', '**/analysis/**'],
      message: 'The compatibility report measures the engine (and the wire command path) alone.',
    },
  ]),
  layer('src/agent-tools', [
    {
      group: ['vscode'],
      message: 'The agent tools have no vscode: the MCP server (CLI) and the language model tools share them.',
    },
    {
      group: [
        '**/extension/commands/**',
        '**/extension/engine-host/**',
        '**/extension/notebook/**',
        '**/extension/tree/**',
        '**/extension/analysis/**',
        '**/extension/*.ts',
        '**/cli/**',
      ],
      message:
        "The agent tools use only the extension's vscode-free Backend and logic (extension/backend, extension/logic).",
    },
  ]),
  layer('src/cli', [
    { group: ['vscode'], message: 'The CLI runs without VS Code.' },
    { group: ['**/extension/**'], message: 'The CLI does not use the extension.' },
  ]),
);
