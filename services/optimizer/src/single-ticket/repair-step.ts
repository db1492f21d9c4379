import { candidateDigest, checkCandidate, type CandidateDiff } from '@aoc/versioned-data';
import type { EntityManager } from 'typeorm';
import { analysedDigest } from '../collect-signals/signal-refs';
import { candidateGate, type GateResult } from '../focus/candidate-gate';
import { familiesCounting } from '../judge-criteria/criterion-judge';
import { saveRecord, settleRecord } from '../persistence/record-store';
import { moveJob, type SingleTicketJob } from '../persistence/single-ticket-store';
import { judgedVersions, timelineOf, type AnswerVersionRow } from '../persistence/signal-store';
import { buildRecord, type ProblemKind } from '../records/optimization-record';
import { unifiedDiff } from '../run-focus/candidate-output';
import type { ReplayRequest } from '../run-focus/ports';
import { judgeReplays, type JudgedReplay } from '../run-focus/replay-judging';
import { criteriaFor, familyOf, isControlFor, problemStatementFor, type FocusCandidate } from '../select-focus/focus-selector';
import { latestAnswer, targetRequest } from './investigate-step';
import type { Investigation } from './investigator';
import { LANE_LIMITS, type LaneDeps } from './ports';
import { commandRefOf } from './triggers';

/**
 * The repair step: candidates from the proposer (the same tunables and policy as the Focus loop;
 * a protected path goes to a human), each gated with the candidate gate on the ticket as the one
 * target plus up to two controls, at most `LANE_LIMITS.proposalsPerRepair`. The first accepted one
 * becomes an optimisation record (lane `single_ticket`) written with the job's move in one
 * transaction, so a crash in between rolls both back and a rerun writes each once.
 */

export interface RepairState {
  recordId: string | null;
  candidateDigest: string | null;
  dataVersion: string | null;
  baseVersion: string;
  tried: { digest: string; gate: GateResult['status']; reason: string }[];
}

/** The job's problem as a one-target Focus-like candidate (what the gate and the record read); no Focus exists. */
async function oneTarget(m: EntityManager, job: SingleTicketJob, answer: AnswerVersionRow, family: NonNullable<ReturnType<typeof familyOf>>): Promise<FocusCandidate> {
  const timeline = await timelineOf(m, job.ticketKey);
  const source = { runId: answer.runId, answerFingerprint: answer.answerFingerprint, cutoff: answer.cutoff, ticketDigest: analysedDigest(timeline?.comments ?? null, answer.cutoff ?? answer.publishedAt), questionDigest: answer.questionDigest ?? null, referenceComments: [] };
  const t = job.trigger;
  const ref = t.kind === 'signal' ? t.ref : commandRefOf(job.jobId);
  const statement = t.kind === 'signal' ? t.statement : `/ticket: ${t.description ?? 'no description'}`;
  const target = { ticketKey: job.ticketKey, ref, source, statement: statement.slice(0, 500) };
  // Controls as the selector picks them: answers as good as the human's, without gaps, on the same family.
  const latest = new Map((await judgedVersions(m)).map((v) => [v.ticketKey, v]));
  const controls = [...latest.values()]
    .filter((v) => isControlFor(family, { ticketKey: v.ticketKey, source, verdict: (v.verdict ?? 'not_compared') as 'equivalent', aiGapCount: v.aiGapCount ?? 0, leadingFamily: v.leadingFamily }, [target]))
    .sort((a, b) => a.ticketKey.localeCompare(b.ticketKey))
    .slice(0, LANE_LIMITS.controls)
    .map((v) => ({ ticketKey: v.ticketKey, source: { ...source, runId: v.runId, answerFingerprint: v.answerFingerprint, cutoff: v.cutoff } }));
  return { groupingDigest: job.jobId, signature: `quality:${family}`, problemStatement: problemStatementFor(family, 1).replace('On 1 tickets', `On ${job.ticketKey}`), ...criteriaFor(family), targets: [target], controls };
}

const requestsOf = (c: FocusCandidate, answer: AnswerVersionRow): ReplayRequest[] => [targetRequest(answer), ...c.controls.map((x) => ({ caseId: x.ticketKey, role: 'control' as const, ticketKey: x.ticketKey, cutoff: x.source.cutoff, runId: x.source.runId }))];

async function judged(deps: LaneDeps, requests: readonly ReplayRequest[], c: FocusCandidate, overlay: ReadonlyMap<string, string> | null): Promise<JudgedReplay[]> {
  return judgeReplays(requests, await deps.replay.replay(requests, overlay), c.criteria, deps.freeTextJudge);
}

type Outcome = { kind: 'accepted'; diff: CandidateDiff; digest: string; files: Map<string, string>; gate: GateResult; attempt: number } | { kind: 'protected'; detail: string } | { kind: 'none' };

async function search(deps: LaneDeps, wantedFamily: string, c: FocusCandidate, requests: readonly ReplayRequest[], baseline: readonly JudgedReplay[], tried: RepairState['tried']): Promise<Outcome> {
  const target = baseline[0];
  const wanted = familiesCounting(wantedFamily);
  const ticketText = deps.replay.ticketText?.(requests[0]) ?? null;
  const raw = await deps.proposer.propose({ wantedFamily, ledFamilies: target.leadingFamily ? [target.leadingFamily] : [], manifest: deps.data.manifest, read: deps.data.read, tried: new Set(), limit: LANE_LIMITS.proposalsPerRepair, ...(ticketText ? { ticketTexts: [ticketText] } : {}), ...(target.queriedFamilies ? { wantedQueried: target.queriedFamilies.some((f) => wanted.includes(f)) } : {}) });
  for (const p of raw.slice(0, LANE_LIMITS.proposalsPerRepair)) {
    const checked = checkCandidate(p, deps.data.manifest, deps.data.read);
    if (!checked.ok && checked.code === 'CANDIDATE.PROTECTED_PATH') return { kind: 'protected', detail: checked.detail };
    if (!checked.ok || !checked.diff || !checked.files) continue;
    const digest = candidateDigest(checked.diff);
    const gate = candidateGate(baseline, await judged(deps, requests, c, checked.files), c.blockingCriterionId);
    tried.push({ digest, gate: gate.status, reason: gate.reason.slice(0, 300) });
    if (gate.status === 'accepted') return { kind: 'accepted', diff: checked.diff, digest, files: checked.files, gate, attempt: tried.length };
  }
  return { kind: 'none' };
}

/** Runs the repair of a job in `repairing` (its investigation selected a local repair). */
export async function repair(deps: LaneDeps, job: SingleTicketJob): Promise<void> {
  const investigation = job.investigation as Investigation;
  const family = familyOf(`quality:${investigation.finding.wantedFamily ?? 'unknown'}`);
  const prepared = await deps.transact(async ({ manager: m }) => {
    const answer = await latestAnswer(m, job.ticketKey);
    return answer && family ? { answer, candidate: await oneTarget(m, job, answer, family) } : null;
  });
  if (!prepared) throw new Error(`${job.jobId} is repairing without an answer or a wanted family`);
  const { answer, candidate } = prepared;
  const requests = requestsOf(candidate, answer);
  const base = deps.data.baseVersion();
  const baseline = await judged(deps, requests, candidate, null);
  const tried: RepairState['tried'] = [];
  const found = await search(deps, family ?? 'unknown', candidate, requests, baseline, tried);
  const state: RepairState = { recordId: null, candidateDigest: null, dataVersion: null, baseVersion: base, tried };
  await deps.transact(async ({ manager: m }) => {
    const at = deps.now();
    if (found.kind === 'protected') return void (await moveJob(m, job, 'repairing', 'protected_path', { reason: `protected_path: the plan touches a protected path (${found.detail})`, outcome: 'protected_path', repair: state }, at));
    if (found.kind === 'none') return void (await moveJob(m, job, 'repairing', 'no_local_repair', { reason: `focus_candidate: no candidate passed the gate on ${job.ticketKey} within ${LANE_LIMITS.proposalsPerRepair} proposal(s); the diagnosis gap is left to the Focus loop`, outcome: 'focus_candidate', repair: state }, at));
    const texts = new Map([...found.files].map(([path]) => [path, deps.data.read(path)]));
    const kinds = new Map<string, ProblemKind>([[candidate.targets[0].ref, job.trigger.kind === 'signal' ? job.trigger.signalKind : 'ticket_command']]);
    const record = await saveRecord(m, buildRecord({ focus: { focusId: job.jobId, focusDigest: `single_ticket:${job.jobId}`, candidate }, attempt: found.attempt, proposer: deps.proposer.engine, baseVersion: base, candidateDigest: found.digest, diff: found.diff, before: texts, after: found.files, manifest: deps.data.manifest, read: deps.data.read, unifiedDiff: unifiedDiff(texts, found.files), gate: found.gate, commit: null, kinds, at, lane: 'single_ticket' }), [job.tenant ?? ''], at);
    await settleRecord(m, record, at);
    await moveJob(m, job, 'repairing', 'repair_recorded', { reason: `recorded ${record.recordId}: ${found.gate.reason}; waiting for ${record.data.dataVersion} to be deployed and verified`, repair: { ...state, recordId: record.recordId, candidateDigest: found.digest, dataVersion: record.data.dataVersion } }, at);
  });
}
