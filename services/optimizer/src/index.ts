export { optimizerDefinition } from './optimizer.definition';
export { FocusController, type StepResult } from './run-focus/focus-controller';
export { FocusIteration, type IterationDeps } from './run-focus/focus-iteration';
export type { CandidateWriter, DataAccess, ReplayPort, ReplayRequest, ReplayResult, Transact } from './run-focus/ports';
export { localDataAccess } from './run-focus/data-access';
export { builtinProposer, builtinProposals, type CandidateProposer, type ProposerInput } from './propose-candidate/builtin-proposer';
export { FOCUS_OUTCOMES, OUTCOME_MEANING, FOCUS_LIMITS, type FocusOutcome } from './focus/focus-outcome';
export { signals as storedSignals } from './persistence/signal-store';
