import type { Instructions, ModelPort } from '@aoc/agent-runtime';
import { readPointer } from '@aoc/versioned-data';
import { z } from 'zod';
import type { CandidateProposer, ProposerInput, TriedCandidate } from './builtin-proposer';

/**
 * The OpenAI-compatible proposer: a reflective proposal from the failing cases' feedback. The
 * model sees the tunables (path, pointer, kind, bounds, current value), the family the blocking
 * criterion wants and the ones the answers led with, and the Pareto set of candidates tried so far
 * (each with its per-case result and review), never a ticket or an answer text. Its output is
 * untrusted: the controller's policy admits or refuses every proposal.
 */

export const PROPOSER_INSTRUCTIONS: Instructions = {
  id: 'optimizer-proposer',
  version: '2026-12-01.2',
  text: [
    'You propose changes to versioned diagnosis data so that replayed answers meet one blocking criterion.',
    'Input: wantedFamily (the metric family the leading mechanism should be about), ledFamilies (what the answers led with instead),',
    'tunables (the only values you may change: path, pointer, kind, bounds, current value), and paretoSet (earlier candidates that were best on at least one case, with per-case results and the review feedback).',
    'A word_lists tunable is a map of entries, each with its words and the metric families they should reach: edit one entry at `<pointer>/<entry>/<wordsKey>` with its whole new list of lower-case words (a trailing * is a prefix).',
    'Propose at most `limit` candidates, most promising first. Each candidate has 1-3 edits; each edit replaces the value at one declared pointer with valueJson (the new value as JSON) and says why in one sentence.',
    'Build on the Pareto set: combine edits that fixed different cases, and do not repeat a candidate already tried. Keep changes narrow: a change that also moves unrelated diagnoses is worse than one that does not.',
    'Answer with JSON only, matching the schema.',
  ].join('\n'),
};

const ProposalOutput = z.object({
  proposals: z
    .array(
      z.object({
        edits: z.array(z.object({ path: z.string(), pointer: z.string(), valueJson: z.string(), because: z.string() })).min(1).max(3),
        rationale: z.string().max(500),
      }),
    )
    .max(8),
});

const RANK = { met: 3, inconclusive: 1, not_applicable: 1, gap: 0 } as const;

/** Candidates not dominated on the per-case results (better or equal everywhere, better somewhere). */
export function paretoSet(history: readonly TriedCandidate[]): TriedCandidate[] {
  const cases = [...new Set(history.flatMap((h) => Object.keys(h.perCase)))];
  const score = (h: TriedCandidate, c: string) => RANK[h.perCase[c] ?? 'gap'];
  const dominates = (a: TriedCandidate, b: TriedCandidate) => cases.every((c) => score(a, c) >= score(b, c)) && cases.some((c) => score(a, c) > score(b, c));
  return history.filter((h) => h.diff && !history.some((o) => o !== h && dominates(o, h)));
}

/** A word-lists map as the model needs it: each entry's words and families, not the rest of the entry. */
function wordListsOf(map: unknown, wordsKey: string, familiesKey: string): Record<string, { words: unknown; families: unknown }> {
  if (map === null || typeof map !== 'object') return {};
  return Object.fromEntries(Object.entries(map as Record<string, Record<string, unknown>>).map(([id, entry]) => [id, { words: entry?.[wordsKey], families: entry?.[familiesKey] }]));
}

export function modelProposer(model: ModelPort): CandidateProposer {
  return {
    engine: 'openai-reflective-v1',
    async propose(input: ProposerInput): Promise<unknown[]> {
      const tunables = input.manifest.files.flatMap((f) => {
        const doc = JSON.parse(input.read(f.path)) as unknown;
        return f.tunables.map((t) => ({ path: f.path, ...t, current: t.kind === 'word_lists' ? wordListsOf(readPointer(doc, t.pointer), t.wordsKey, t.familiesKey) : readPointer(doc, t.pointer) }));
      });
      const result = await model.invoke({
        role: 'proposer',
        instructions: PROPOSER_INSTRUCTIONS,
        input: { wantedFamily: input.wantedFamily, ledFamilies: input.ledFamilies, limit: input.limit, tunables, paretoSet: paretoSet(input.history ?? []).map((h) => ({ edits: h.diff.edits, perCase: h.perCase, feedback: h.feedback })) },
        output: ProposalOutput,
      });
      // valueJson that is not JSON is passed on as it is: the policy refuses it with the field named.
      return result.output.proposals.map((p) => ({
        edits: p.edits.map((e) => {
          let value: unknown = e.valueJson;
          try {
            value = JSON.parse(e.valueJson);
          } catch {
            // kept as text
          }
          return { path: e.path, pointer: e.pointer, value, because: e.because.slice(0, 300) };
        }),
      }));
    },
  };
}
