import { AgentRuntime, loadAgentRuntimeConfig } from '@aoc/agent-runtime';
import { modelFreeTextJudge, type FreeTextJudge } from '../judge-criteria/model-criterion-judge';
import { builtinSelector, modelSelector, type FocusSelector } from '../select-focus/model-selector';
import { builtinProposer, type CandidateProposer } from './builtin-proposer';
import { modelProposer } from './model-proposer';

/** The proposer this deployment configured: `AOC_MODEL_ENGINE_PROPOSER=openai` (with its endpoint keys) or the built-in search. */
export function proposerFromEnv(env: Record<string, string | undefined> = process.env): CandidateProposer {
  const config = loadAgentRuntimeConfig(env, ['proposer']);
  return config.proposer?.engine === 'openai' ? modelProposer(new AgentRuntime({ config })) : builtinProposer;
}

/** The free-text criterion judge this deployment configured (`AOC_MODEL_ENGINE_JUDGE=openai`); none leaves free text inconclusive. */
export function freeTextJudgeFromEnv(env: Record<string, string | undefined> = process.env): FreeTextJudge | undefined {
  const config = loadAgentRuntimeConfig(env, ['judge']);
  return config.judge?.engine === 'openai' ? modelFreeTextJudge(new AgentRuntime({ config })) : undefined;
}

/** The Focus selector this deployment configured: `AOC_MODEL_ENGINE_SELECTOR=openai` or the built-in grouping. */
export function selectorFromEnv(env: Record<string, string | undefined> = process.env): FocusSelector {
  const config = loadAgentRuntimeConfig(env, ['selector']);
  return config.selector?.engine === 'openai' ? modelSelector(new AgentRuntime({ config })) : builtinSelector;
}
