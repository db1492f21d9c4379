import nx from '@nx/eslint-plugin';
import tseslint from 'typescript-eslint';

/**
 * Module boundaries are real constraints:
 * - libs/contracts (type:contracts) imports nothing internal;
 * - libs (type:lib) import libs and contracts only;
 * - services (type:service) import libs and contracts, never another service;
 * - the launcher (type:launcher) wires services together for the one-process default.
 *
 * Test code stays out of production (issue 22 item 6). Test-only helpers of a lib (fake servers,
 * fixtures, sample data) are exported from its testing entry point `@aoc/<lib>/testing`
 * (libs/<lib>/testing/index.ts, package.json `exports["./testing"]`), never from `@aoc/<lib>`.
 * Production code may not import a testing entry point, statically or with `import()`, nor
 * reach a `test/` or `testing/` folder by a relative path. Production code is every .ts file
 * except TEST_ONLY_FILES below:
 * - specs: *.spec.ts (property specs included) and *.integration-spec.ts (kafka ones included);
 * - anything under a test/ or testing/ folder (lib fixtures, service and launcher harnesses, the
 *   testing entry points themselves);
 * - bench/**: benchmarks, run by hand against fake peers;
 * - the tool harnesses that only exist to drive fake peers: tools/record-examples.ts
 *   (`npm run examples:record` runs the bundled examples against a real Prometheus and the
 *   scripted Clinic/Grafana/Dashboard peers), tools/launcher/src/examples/** (the synthetic
 *   series and dashboard fixtures those recordings are made from) and
 *   tools/launcher/src/diagnosis-bench/** (the diagnosis benchmark's scenario and series builders,
 *   used by bench/ and tools/lab).
 * Everything else is production: services/<role>/src, libs/<lib>/src, deploy/** and the rest of
 * tools/** (launcher wiring, CLIs, build). tools/check-boundaries.sh proves the rule bites.
 */
const KAFKAJS_PATTERN = { group: ['kafkajs'], message: 'kafkajs stays behind @aoc/bus (libs/bus/src/kafka).' };
const TESTING_MESSAGE = 'test-only code: import @aoc/<lib>/testing (or a test/ or testing/ folder) from specs, test harnesses and benches only (eslint.config.mjs).';
const TESTING_PATTERNS = [
  { group: ['@aoc/*/testing', '@aoc/*/testing/**'], message: TESTING_MESSAGE },
  // Relative paths into a test/ or testing/ folder (a lib's own src/testing fakes included).
  { regex: '^\\.{1,2}/(?:.*/)?(?:test|testing)(?:/|$)', message: TESTING_MESSAGE },
];
// `import('@aoc/<lib>/testing')` and `typeof import('@aoc/<lib>/testing')`, which no-restricted-imports does not see.
const TESTING_SPECIFIER = '/^@aoc\\u002F[^\\u002F]+\\u002Ftesting(\\u002F|$)/';
const TESTING_SYNTAX = [
  { selector: `ImportExpression[source.value=${TESTING_SPECIFIER}]`, message: TESTING_MESSAGE },
  { selector: `TSImportType[argument.literal.value=${TESTING_SPECIFIER}]`, message: TESTING_MESSAGE },
];
const TEST_ONLY_FILES = [
  '**/*.spec.ts',
  '**/*.integration-spec.ts',
  '**/test/**/*.ts',
  '**/testing/**/*.ts',
  'bench/**/*.ts',
  'tools/record-examples.ts',
  'tools/launcher/src/examples/**/*.ts',
  'tools/launcher/src/diagnosis-bench/**/*.ts',
];

export default [
  { ignores: ['**/node_modules/**', '**/dist/**', '.nx/**', 'deploy/local/.kafka/**', 'docs/**', 'coverage/**', '**/*.js', '**/*.mjs'] },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    plugins: { '@nx': nx },
    rules: {
      '@nx/enforce-module-boundaries': [
        'error',
        {
          enforceBuildableLibDependency: false,
          allowCircularSelfDependency: false,
          banTransitiveDependencies: false,
          checkDynamicDependenciesExceptions: [],
          depConstraints: [
            { sourceTag: 'type:contracts', onlyDependOnLibsWithTags: [] },
            { sourceTag: 'type:lib', onlyDependOnLibsWithTags: ['type:lib', 'type:contracts'] },
            { sourceTag: 'type:service', onlyDependOnLibsWithTags: ['type:lib', 'type:contracts'] },
            { sourceTag: 'type:launcher', onlyDependOnLibsWithTags: ['type:service', 'type:lib', 'type:contracts'] },
          ],
        },
      ],
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-imports': ['error', { patterns: [KAFKAJS_PATTERN, ...TESTING_PATTERNS] }],
      'no-restricted-syntax': ['error', ...TESTING_SYNTAX],
    },
  },
  {
    // Test-only files may import testing entry points (kafkajs stays restricted where it was).
    files: TEST_ONLY_FILES,
    rules: {
      'no-restricted-imports': ['error', { patterns: [KAFKAJS_PATTERN] }],
      'no-restricted-syntax': 'off',
    },
  },
  {
    // kafkajs is allowed here; production files among them still may not import test code.
    files: ['libs/bus/src/transport/kafka/**/*.ts', 'deploy/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: TESTING_PATTERNS }] },
  },
  {
    files: ['libs/bus/test/kafka-harness.ts', 'bench/**/*.ts', '**/*.integration-spec.ts'],
    rules: { 'no-restricted-imports': 'off' },
  },
];
