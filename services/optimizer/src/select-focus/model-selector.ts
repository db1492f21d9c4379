import type { Instructions, ModelPort } from '@aoc/agent-runtime';
import { isMetricFamilyId, METRIC_FAMILIES, type MetricFamilyId } from '@aoc/metric-ontology';
import { z } from 'zod';
import { UNCLASSIFIED } from '../collect-signals/signal-refs';
import { FOCUS_LIMITS } from '../focus/focus-limits';
import { criteriaFor, familyOf, groupingDigest, isControlFor, problemStatementFor, selectFocus, targetSetKey, type ControlCandidate, type FocusCandidate, type SelectableSignal, type Selection } from './focus-selector';

/**
 * Focus selectors: the built-in grouping by signal signature, and an OpenAI-compatible one that
 * may also group signals the signatures could not classify (`quality:unclassified`) under the family
 * their statements describe. The model's choice is untrusted: the same rules as the built-in
 * grouping admit it (2-5 targets of distinct tickets, each one open quality ref, no ref classified
 * under another family, controls that qualify, a grouping not rejected before). A refused or
 * failed model selection falls back to the built-in grouping and says so.
 */

export interface SelectionInput {
  signals: readonly SelectableSignal[];
  controls: readonly ControlCandidate[];
  /** Grouping digests a baseline rejected within the lookback (older rejections have expired). */
  rejected: ReadonlySet<string>;
  /** Their target-ref sets (`targetSetKey`): a model may not bring the same targets back with other controls. */
  rejectedTargets?: ReadonlySet<string>;
  /** Their target refs: the built-in grouping prefers refs not among them, so new refs make a new grouping. */
  rejectedRefs?: ReadonlySet<string>;
}

export interface FocusSelector {
  readonly engine: string;
  select(input: SelectionInput): Promise<Selection>;
}

export const builtinSelector: FocusSelector = {
  engine: 'builtin-signature-grouping-v1',
  select: ({ signals, controls, rejected, rejectedRefs }) => Promise.resolve(selectFocus(signals, controls, rejected, rejectedRefs)),
};

export const SELECTOR_INSTRUCTIONS: Instructions = {
  id: 'optimizer-selector',
  version: '2026-12-01.1',
  text: [
    'You pick one narrow, recurring problem in the answers of a database incident assistant, to be fixed by changing its diagnosis data.',
    'Input: open problem signals (ref, ticket, kind, signature, statement), control candidates (answers as good as the human ones), the metric families, and limits.',
    'A narrow problem is one metric family that the human answers named while the published answers led with something else, on at least minTargets tickets.',
    'Choose targetRefs (one ref per ticket, minTargets to maxTargets of them), the family, and at most maxControls controlTickets whose leadingFamily is that family.',
    'A signal whose signature already names a family belongs to that family only; quality:unclassified signals may be grouped by what their statements say. Never choose runtime signals.',
    'When no narrow problem is shared by enough tickets, answer kind "none" with the reason. Answer with JSON only, matching the schema.',
  ].join('\n'),
};

const ModelSelection = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('focus'), family: z.string(), targetRefs: z.array(z.string()).max(10), controlTickets: z.array(z.string()).max(5), rationale: z.string().max(500) }),
  z.object({ kind: z.literal('none'), reason: z.string().max(300) }),
]);
type ModelSelection = z.infer<typeof ModelSelection>;

/** Signals a model may see: open quality signals, with bounded statements. */
const MAX_SIGNALS_SHOWN = 200;

/** The model's focus choice checked against the built-in rules; the candidate, or why it is refused. */
export function admitModelSelection(choice: Extract<ModelSelection, { kind: 'focus' }>, input: SelectionInput): { candidate: FocusCandidate } | { refused: string } {
  if (!isMetricFamilyId(choice.family) || choice.family === 'unknown') return { refused: `"${choice.family}" is not a metric family` };
  const family: MetricFamilyId = choice.family;
  const refs = [...new Set(choice.targetRefs)];
  if (refs.length < FOCUS_LIMITS.minTargets || refs.length > FOCUS_LIMITS.maxTargets) return { refused: `${refs.length} targets; a Focus has ${FOCUS_LIMITS.minTargets}-${FOCUS_LIMITS.maxTargets}` };
  const chosen: SelectableSignal[] = [];
  for (const ref of refs) {
    const s = input.signals.find((x) => x.ref === ref);
    if (!s || s.unavailable) return { refused: `${ref} is not an open signal` };
    if (s.kind === 'runtime') return { refused: `${ref} is a runtime signal (investigated, not tuned)` };
    const named = familyOf(s.signature);
    if (named !== null && named !== family) return { refused: `${ref} is classified under ${named}, not ${family}` };
    if (named === null && s.signature !== UNCLASSIFIED) return { refused: `${ref} (${s.signature}) is too broad` };
    if (chosen.some((c) => c.ticketKey === s.ticketKey)) return { refused: `two targets on ${s.ticketKey}` };
    chosen.push(s);
  }
  if (input.rejectedTargets?.has(targetSetKey(refs))) return { refused: 'these targets were rejected by an earlier baseline (with other controls)' };
  const targets = chosen.sort((a, b) => a.ticketKey.localeCompare(b.ticketKey)).map((s) => ({ ticketKey: s.ticketKey, ref: s.ref, source: s.source, statement: s.statement }));
  const controlTickets = [...new Set(choice.controlTickets)];
  if (controlTickets.length > FOCUS_LIMITS.maxControls) return { refused: `${controlTickets.length} controls; at most ${FOCUS_LIMITS.maxControls}` };
  const controls = [];
  for (const key of controlTickets.sort()) {
    const c = input.controls.find((x) => x.ticketKey === key);
    if (!c || !isControlFor(family, c, targets)) return { refused: `${key} does not qualify as a control for ${family}` };
    controls.push({ ticketKey: c.ticketKey, source: c.source });
  }
  const digest = groupingDigest(targets.map((t) => t.ref), controls.map((c) => c.ticketKey));
  if (input.rejected.has(digest)) return { refused: 'this grouping was rejected by an earlier baseline' };
  return { candidate: { groupingDigest: digest, signature: `quality:${family}`, problemStatement: problemStatementFor(family, targets.length), ...criteriaFor(family), targets, controls } };
}

export function modelSelector(model: ModelPort): FocusSelector {
  return {
    engine: 'openai-selector-v1',
    async select(input: SelectionInput): Promise<Selection> {
      const fallback = (why: string): Selection => {
        const builtin = selectFocus(input.signals, input.controls, input.rejected, input.rejectedRefs);
        return builtin.kind === 'candidate' ? { ...builtin, note: `the built-in grouping; the model selection was refused: ${why}`.slice(0, 300) } : { kind: 'none', reason: `${builtin.reason}; the model selection was refused: ${why}`.slice(0, 500) };
      };
      const shown = input.signals.filter((s) => !s.unavailable && s.kind !== 'runtime').slice(0, MAX_SIGNALS_SHOWN);
      let choice: ModelSelection;
      try {
        const out = await model.invoke({
          role: 'selector',
          instructions: SELECTOR_INSTRUCTIONS,
          input: {
            signals: shown.map((s) => ({ ref: s.ref, ticketKey: s.ticketKey, kind: s.kind, signature: s.signature, statement: s.statement.slice(0, 300) })),
            controls: input.controls.map((c) => ({ ticketKey: c.ticketKey, verdict: c.verdict, aiGapCount: c.aiGapCount, leadingFamily: c.leadingFamily })),
            families: METRIC_FAMILIES.map((f) => ({ id: f.id, label: f.label })),
            limits: { minTargets: FOCUS_LIMITS.minTargets, maxTargets: FOCUS_LIMITS.maxTargets, maxControls: FOCUS_LIMITS.maxControls },
          },
          output: ModelSelection,
        });
        choice = out.output;
      } catch (error) {
        return fallback(`the model failed (${error instanceof Error ? error.message : String(error)})`);
      }
      if (choice.kind === 'none') return { kind: 'none', reason: `the model found no narrow problem: ${choice.reason}`.slice(0, 500) };
      const admitted = admitModelSelection(choice, input);
      return 'candidate' in admitted ? { kind: 'candidate', candidate: admitted.candidate, note: 'chosen by the model selector' } : fallback(admitted.refused);
    },
  };
}
