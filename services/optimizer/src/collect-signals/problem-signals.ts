import type { EvaluationJudgedV1, RunExecutionRecordedV1 } from '@aoc/contracts';

export interface ProblemSignal {
  kind: string;
  detail: string;
}

/** Runtime signals come from execution state only. */
export function runtimeSignals(record: RunExecutionRecordedV1): ProblemSignal[] {
  const signals: ProblemSignal[] = [];
  const status = record.evidenceAcquisition.status;
  if (status === 'degraded' || status === 'failed') {
    signals.push({ kind: `runtime.evidence_${status}`, detail: `providers ${record.evidenceAcquisition.providers.join(', ')}; codes ${record.failureCodes.join(', ') || 'none'}` });
  }
  if (record.responseGeneration.status !== 'succeeded') signals.push({ kind: `runtime.response_${record.responseGeneration.status}`, detail: record.responseGeneration.engine });
  for (const code of record.failureCodes) signals.push({ kind: 'runtime.failure_code', detail: code });
  return signals;
}

/** Quality signals come from the judge's verdict. */
export function qualitySignals(evaluation: EvaluationJudgedV1): ProblemSignal[] {
  if (evaluation.verdict !== 'human_better') return [];
  return [{ kind: 'quality.human_better', detail: evaluation.aiGaps.slice(0, 3).join(' | ') || evaluation.verdictReason }];
}
