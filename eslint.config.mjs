import nx from '@nx/eslint-plugin';
import tseslint from 'typescript-eslint';

/**
 * Module boundaries are real constraints:
 * - libs/contracts (type:contracts) imports nothing internal;
 * - libs (type:lib) import libs and contracts only;
 * - services (type:service) import libs and contracts, never another service;
 * - the launcher (type:launcher) wires services together for the one-process default.
 */
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
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['kafkajs'], message: 'kafkajs stays behind @aoc/bus (libs/bus/src/kafka).' }] },
      ],
    },
  },
  {
    files: ['libs/bus/src/transport/kafka/**/*.ts', 'libs/bus/test/kafka-harness.ts', 'deploy/**/*.ts', 'bench/**/*.ts', '**/*.integration-spec.ts'],
    rules: { 'no-restricted-imports': 'off' },
  },
];
