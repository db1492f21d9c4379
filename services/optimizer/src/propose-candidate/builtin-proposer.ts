import { familiesInText, METRIC_FAMILIES } from '@aoc/metric-ontology';
import { signalOccurs } from '@aoc/signal-match';
import { candidateDigest, readPointer, type CandidateDiff, type DataManifest, type Tunable } from '@aoc/versioned-data';
import { familiesCounting } from '../judge-criteria/criterion-judge';

/**
 * The built-in candidate proposer: a bounded search over the tunables the versioned-data manifest
 * declares, guided by the criterion feedback. The blocking criterion names the family the answer
 * should lead with; the baseline shows which family it led with instead. Proposals, in order:
 * a causal edge from the wanted family to the one that won (or removing the reverse edge), taking
 * the wanted family out of (or the winner into) the effect families, then one step of each
 * numeric threshold. Word lists (the scenario signals) come first instead when no failing target
 * even asked for the wanted family: the ticket's own words for it should select what measures it.
 * Nothing is proposed twice, and the proposer never sees a case's answer text.
 */

export interface ProposerInput {
  /** The family the blocking criterion wants the leading mechanism to be about. */
  wantedFamily: string;
  /** Families the answers led with on the targets where the criterion is a gap (most frequent first). */
  ledFamilies: readonly string[];
  manifest: DataManifest;
  read: (path: string) => string;
  /** Candidate digests already attempted on this Focus. */
  tried: ReadonlySet<string>;
  /** At most this many proposals. */
  limit: number;
  /** Candidates tried on this Focus with their blocking status per target (the model proposer builds on the best). */
  history?: readonly TriedCandidate[];
  /** Title and description of the targets where the blocking criterion is a gap: customer words, read from the frozen cases, never stored. */
  ticketTexts?: readonly string[];
  /** Whether any of those targets' evidence plans asked for the wanted family (or a narrower one). */
  wantedQueried?: boolean;
}

export interface TriedCandidate {
  diff: CandidateDiff;
  /** Target case -> blocking criterion status on the challenger. */
  perCase: Readonly<Record<string, 'met' | 'gap' | 'inconclusive' | 'not_applicable'>>;
  feedback: string;
}

/** A proposer port: built-in or model-backed; its output is untrusted until the policy admits it. */
export interface CandidateProposer {
  readonly engine: string;
  propose(input: ProposerInput): Promise<unknown[]>;
}

interface Located {
  path: string;
  tunable: Tunable;
  current: unknown;
}

const edit = (path: string, pointer: string, value: unknown, because: string): CandidateDiff => ({ edits: [{ path, pointer, value, because }] });

function edgeProposals(l: Located, wantedFamily: string, led: readonly string[]): CandidateDiff[] {
  const drives = (l.current ?? {}) as Record<string, string[]>;
  const out: CandidateDiff[] = [];
  // The criterion also counts narrower families ("lock waits" for locks): the metric that moved is
  // more often one of them, so they are tried first and the family itself last.
  const wantedFamilies = [...familiesCounting(wantedFamily).filter((f) => f !== wantedFamily), wantedFamily];
  for (const wanted of wantedFamilies) for (const winner of led) {
    if (familiesCounting(wantedFamily).includes(winner)) continue;
    const from = drives[wanted] ?? [];
    if (!from.includes(winner)) {
      const because = `${wanted} usually drives ${winner}: when both change together, ${wanted} is the cause`;
      // Pointers replace existing keys only: a family without edges yet is added through the whole map.
      out.push(wanted in drives ? edit(l.path, `${l.tunable.pointer}/${wanted}`, [...from, winner], because) : edit(l.path, l.tunable.pointer, { ...drives, [wanted]: [winner] }, because));
    }
    const back = drives[winner] ?? [];
    if (back.includes(wanted)) {
      out.push(edit(l.path, `${l.tunable.pointer}/${winner}`, back.filter((f) => f !== wanted), `${winner} does not drive ${wanted} in these incidents: drop that edge`));
    }
  }
  return out;
}

function setProposals(l: Located, wantedFamily: string, led: readonly string[]): CandidateDiff[] {
  const set = Array.isArray(l.current) ? (l.current as string[]) : [];
  const out: CandidateDiff[] = [];
  for (const wanted of familiesCounting(wantedFamily)) if (set.includes(wanted)) out.push(edit(l.path, l.tunable.pointer, set.filter((f) => f !== wanted), `${wanted} can be a cause, not only an effect`));
  for (const winner of led) if (!familiesCounting(wantedFamily).includes(winner) && !set.includes(winner)) out.push(edit(l.path, l.tunable.pointer, [...set, winner], `${winner} follows the workload here: treat it as an effect`));
  return out;
}

function numberProposals(l: Located): CandidateDiff[] {
  if (l.tunable.kind !== 'number' || typeof l.current !== 'number') return [];
  const { min, max, step } = l.tunable;
  const round = (n: number) => Math.round(n * 1e6) / 1e6;
  return [round(l.current - step), round(l.current + step)]
    .filter((v) => v >= min && v <= max)
    .map((v) => edit(l.path, l.tunable.pointer, v, `${l.tunable.pointer.slice(1)} ${v < (l.current as number) ? 'down' : 'up'} one step (${l.current} -> ${v}): ${l.tunable.about}`));
}

/** Whether a ticket saying `phrase` is already matched by one of the signals (the router's matcher: whole words, `x*` a prefix). */
const covered = (signals: readonly string[], phrase: string): boolean => signals.some((s) => signalOccurs(phrase, s));

/**
 * The wanted families' ontology words the failing tickets use, as signals that match those
 * tickets (whole words; the prefix form `word*` where the ticket inflects it, "vcpus"), by how
 * many tickets each matches.
 */
function ticketWordsFor(wanted: readonly string[], texts: readonly string[]): [string, number][] {
  const lowered = texts.map((t) => t.toLowerCase());
  const counts = new Map<string, number>();
  for (const text of lowered) {
    const words = new Set(familiesInText(text).filter((m) => wanted.includes(m.family)).flatMap((m) => m.words));
    for (const w of words) {
      const form = [w, `${w}*`].find((f) => covered([f], text));
      if (form) counts.set(form, (counts.get(form) ?? 0) + 1);
    }
  }
  return [...counts].sort((a, b) => b[1] - a[1] || b[0].length - a[0].length || a[0].localeCompare(b[0]));
}

/** One word added to an entry that is meant to reach the wanted family but whose words miss what the tickets say. */
function wordProposals(l: Located, input: ProposerInput): CandidateDiff[] {
  if (l.tunable.kind !== 'word_lists') return [];
  const { pointer, wordsKey, familiesKey } = l.tunable;
  const wanted = familiesCounting(input.wantedFamily);
  const spoken = ticketWordsFor(wanted, input.ticketTexts ?? []);
  const entries = l.current !== null && typeof l.current === 'object' ? (l.current as Record<string, Record<string, unknown>>) : {};
  const familyWords = METRIC_FAMILIES.filter((f) => wanted.includes(f.id)).flatMap((f) => f.words);
  const reaching = Object.entries(entries).flatMap(([id, entry]) => {
    const families = ([] as unknown[]).concat(entry[familiesKey] ?? []);
    const words = Array.isArray(entry[wordsKey]) ? (entry[wordsKey] as unknown[]).filter((w): w is string => typeof w === 'string') : null;
    if (!words || !families.some((f) => typeof f === 'string' && wanted.includes(f))) return [];
    // The entry whose words already speak of the family most is the one about it (cpu-saturation before hotspot).
    return [{ id, words, affinity: familyWords.filter((w) => covered(words, w)).length }];
  });
  const out: CandidateDiff[] = [];
  for (const { id, words } of reaching.sort((a, b) => b.affinity - a.affinity)) {
    for (const [word, n] of spoken) {
      if (covered(words, word.replace(/\*$/, ''))) continue;
      out.push(edit(l.path, `${pointer}/${id}/${wordsKey}`, [...words, word], `${n} failing ticket(s) say "${word}", a word for ${input.wantedFamily}: let it select ${id}`));
    }
  }
  return out;
}

export function builtinProposals(input: ProposerInput): CandidateDiff[] {
  const located: Located[] = input.manifest.files.flatMap((f) => {
    const doc = JSON.parse(input.read(f.path)) as unknown;
    return f.tunables.map((tunable) => ({ path: f.path, tunable, current: readPointer(doc, tunable.pointer) }));
  });
  const words = located.filter((l) => l.tunable.kind === 'word_lists').flatMap((l) => wordProposals(l, input));
  const ordered = [
    ...(input.wantedQueried === false ? words : []),
    ...located.filter((l) => l.tunable.kind === 'family_edges').flatMap((l) => edgeProposals(l, input.wantedFamily, input.ledFamilies)),
    ...located.filter((l) => l.tunable.kind === 'family_set').flatMap((l) => setProposals(l, input.wantedFamily, input.ledFamilies)),
    ...(input.wantedQueried === false ? [] : words),
    ...located.filter((l) => l.tunable.kind === 'number').flatMap(numberProposals),
  ];
  const seen = new Set(input.tried);
  const out: CandidateDiff[] = [];
  for (const p of ordered) {
    const digest = candidateDigest(p);
    if (seen.has(digest)) continue;
    seen.add(digest);
    out.push(p);
    if (out.length >= input.limit) break;
  }
  return out;
}

export const builtinProposer: CandidateProposer = {
  engine: 'builtin-tunable-search-v1',
  propose: (input) => Promise.resolve(builtinProposals(input)),
};
