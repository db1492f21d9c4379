export * from './all-services';
export * from './embedded-platform';
export * from './run-example';
export * from './examples/example-series';
export * from './optimizer/optimize-demo';
export { childReplayPort } from './optimizer/child-replay';
export { gitCandidateWriter } from './optimizer/git-writer';
export { freezeDeploymentCases } from './optimizer/deployment-cases';
export { frozenCaseFiles, localOptimizerPorts, optimizerTransact, type LocalOptimizerOptions } from './optimizer/local-optimizer';
