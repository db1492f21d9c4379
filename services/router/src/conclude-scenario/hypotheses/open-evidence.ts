import { MAX_QUERIES_PER_BATCH } from '@aoc/contracts';
import { familiesInText, familyLabel, familyWords, isMetricFamilyId } from '@aoc/metric-ontology';
import type { Hypothesis } from './evaluate-modes';
import type { EvidenceContext } from './evidence-context';
import { conditionFamilies, type Clause, type FailureMode } from './failure-modes.data';

/**
 * The hypothesis-driven second round: after the first batch, the modes left undetermined because
 * a family they read was never measured name those families, and the diagnostic agent asks for
 * them in one neutral question (families only, never the suspicion). An on-call engineer does the
 * same: the symptom's own series first, then the series that tell the open causes apart.
 */
export const OPEN_HYPOTHESES_KIND = 'open_hypotheses';

/**
 * Families asked at most. More than the batch holds: the router does not know which families the
 * target has, and the planner takes the first of them it finds, in the order asked.
 */
const MAX_ASKED = 3 * MAX_QUERIES_PER_BATCH;

/** Families given to modes one clause from a verdict before the breadth-first round: half a batch. */
const NEAR_VERDICT_SHARE = Math.floor(MAX_QUERIES_PER_BATCH / 2);

export interface OpenEvidence {
  families: string[];
  /** The modes whose evidence the question asks for, in the order their families were taken. */
  modes: string[];
  question: string;
  stopCondition: string;
}

function clauseFamilies(clause: Clause): string[] {
  if (!('anyOf' in clause)) return conditionFamilies(clause);
  return clause.anyOf.flatMap((alt) => ('allOf' in alt ? alt.allOf.flatMap(conditionFamilies) : conditionFamilies(alt)));
}

/** The families a mode reads to decide its signature, then the rest of its declared evidence. */
export function modeFamilies(mode: FailureMode): string[] {
  return [...new Set([...mode.signature.flatMap(clauseFamilies), ...mode.evidence.families])];
}

/**
 * Words the Evidence Agent's planner maps back to this family, and to no family already measured:
 * its label ("lock waits" also asks for locks, which is welcome while locks are unread), else its
 * first word that maps to it alone ("disk latency" would ask query latency again once it was
 * read), else the label when it maps at all.
 */
export function familyPhrase(family: string, measured: ReadonlySet<string> = new Set()): string | null {
  if (!isMetricFamilyId(family)) return null;
  const found = (text: string) => familiesInText(text).map((m) => m.family as string);
  const fits = (text: string) => {
    const fs = found(text);
    return fs.includes(family) && fs.every((f) => f === family || !measured.has(f));
  };
  const label = familyLabel(family);
  if (fits(label)) return label;
  const word = familyWords(family).find(fits);
  if (word) return word;
  return found(label).includes(family) ? label : (familyWords(family).find((w) => found(w).includes(family)) ?? null);
}

/**
 * The families to ask for next, or null when nothing open needs a family the first round did not
 * read. Families are taken breadth first over the undetermined modes, closest first, (each
 * mode's deciding family before any mode's second one), skipping those measured (with series, or
 * queried and found empty).
 */
export function openEvidence(hypotheses: readonly Hypothesis[], ctx: EvidenceContext, emptyFamilies: readonly string[]): OpenEvidence | null {
  const measured = new Set<string>([...ctx.byFamily.keys(), ...emptyFamilies]);
  // The modes that came closest first: their missing evidence is the likeliest to settle the ticket.
  const open = hypotheses.filter((h) => h.verdict === 'undetermined' && h.mode.id !== 'healthy').sort((a, b) => b.promise - a.promise);
  const wanted = open.map((h) => ({ mode: h.mode.id, families: modeFamilies(h.mode).filter((f) => !measured.has(f) && familyPhrase(f, measured) !== null) })).filter((w) => w.families.length > 0);
  const families: string[] = [];
  const modes: string[] = [];
  // A mode one clause from a verdict (the log already shows checkpoint warnings; only the write
  // burst is unmeasured) gets every way to measure that clause first, within half a batch.
  for (const h of open.filter((o) => o.nearVerdict)) {
    for (const f of h.openFamilies.filter((x) => !measured.has(x) && familyPhrase(x, measured) !== null)) {
      if (families.length >= NEAR_VERDICT_SHARE || families.includes(f)) continue;
      families.push(f);
      if (!modes.includes(h.mode.id)) modes.push(h.mode.id);
    }
  }
  for (let depth = 0; families.length < MAX_ASKED && wanted.some((w) => w.families.length > depth); depth++) {
    for (const w of wanted) {
      const f = w.families[depth];
      if (f === undefined || families.includes(f) || families.length >= MAX_ASKED) continue;
      families.push(f);
      if (!modes.includes(w.mode)) modes.push(w.mode);
    }
  }
  if (families.length === 0) return null;
  const phrases = [...new Set(families.map((f) => familyPhrase(f, measured) as string))];
  const list = phrases.length === 1 ? phrases[0] : `${phrases.slice(0, -1).join(', ')} and ${phrases[phrases.length - 1]}`;
  return {
    families,
    modes,
    question: `How did ${list} change across the window?`.slice(0, 1000),
    stopCondition: 'Each named series is available for the window, or the provider reports that it holds none.',
  };
}
