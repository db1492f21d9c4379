import { factsOf, states, type Fact } from './facts/facts';
import { BEARING } from './judge-rules.data';

/**
 * What the human answer does with each of its facts. A fact bears on the cause, the action or
 * the decision when a statement uses it so (a cue such as "because", "set", "escalated", or a
 * derivation: the statement computes a new value from it); otherwise it is incidental — a target
 * to return to, a pleasantry, a restated symptom (only ticket facts, no cue) — or plain context.
 * Only a fact with a bearing can ground `human_better`.
 */
export type Bearing = 'cause' | 'action' | 'decision';
export type Incidental = 'target' | 'unchanged' | 'pleasantry' | 'symptom' | 'context';
export type Role = { bearing: Bearing; via: 'cue' | 'derivation' } | { bearing: null; incidental: Incidental };

const KINDS: readonly Bearing[] = ['cause', 'action', 'decision'];
// Connectors that open a cause or a condition stay with their clause (lookahead), so their cue is kept.
const CLAUSE_SPLIT = /[,;:]\s|\s\(|\)\s?|\s+(?:and|but|while)\s+|(?=\s(?:because|due to|since|once|when|if|so|which)\s)|\s[–—-]\s/;

export interface Statement {
  text: string;
  /** For a table cell, its column header: a "cause" or "action" column says what the cell does. */
  column: string | null;
}

const cells = (row: string) => row.replace(/^\|/, '').replace(/\|$/, '').split('|').map((c) => c.trim());

/** Sentences and lines of a text; a table is read cell by cell under its header. */
export function statements(text: string): Statement[] {
  const out: Statement[] = [];
  let header: string[] | null = null;
  for (const line of text.replace(/```[\s\S]*?```/g, (block) => block.replace(/\n/g, ' ')).split('\n')) {
    const row = line.trim();
    if (!row.startsWith('|')) {
      header = null;
      out.push(...row.split(/(?<=[.!?])\s+/).filter((s) => s.trim().length > 0).map((s) => ({ text: s, column: null })));
      continue;
    }
    if (/^\|?[-:| ]+\|?$/.test(row)) continue;
    if (header === null) header = cells(row);
    else out.push(...cells(row).map((cell, i) => ({ text: cell, column: header?.[i] ?? null })).filter((c) => c.text.length > 0));
  }
  return out;
}

const cueOf = (text: string): Bearing | null => KINDS.find((k) => BEARING[k].test(text)) ?? null;

function roleIn(fact: Fact, { text: statement, column }: Statement, ticketFacts: readonly Fact[]): Role {
  const clause = statement.split(CLAUSE_SPLIT).find((c) => states(factsOf(c), fact)) ?? statement;
  if (BEARING.target.test(clause) && !BEARING.imperative.test(clause)) return { bearing: null, incidental: 'target' };
  if (BEARING.unchanged.test(clause)) return { bearing: null, incidental: 'unchanged' };
  const all = factsOf(statement);
  if (BEARING.pleasantry.test(clause) && !factsOf(clause).some((f) => f.kind === 'term')) return { bearing: null, incidental: 'pleasantry' };
  // A ticket value bears only where its own clause uses it ("p99 went from 40 to 400 ms because ..." restates);
  // so does a name beside a value (it labels the value: "the max_connections limit of 500"). A name on
  // its own (table, job, index) is never a restated symptom, so its statement's cue holds for it.
  const labelsValue = factsOf(clause).some((f) => f.kind === 'quantity');
  const restated = states(ticketFacts, fact) && (fact.kind !== 'identifier' || labelsValue);
  const cue = (column !== null ? cueOf(column) : null) ?? cueOf(clause) ?? (restated ? null : cueOf(statement));
  if (cue) return { bearing: cue, via: 'cue' };
  // A derivation computes a new value from a ticket value in the same clause ("95% of 1 TiB: about 51 GiB free").
  const values = factsOf(clause).filter((f) => f.kind === 'quantity');
  const derived = values.some((f) => !states(ticketFacts, f)) && values.some((f) => states(ticketFacts, f));
  if (derived && (fact.kind === 'quantity' || states(ticketFacts, fact))) return { bearing: 'cause', via: 'derivation' };
  // Across clauses, a ticket value is a premise when a new value of the same subject is set against it ("limit 500 ... open 600 connections").
  const subject = fact.quantity?.subject ?? null;
  const premise = subject !== null && states(ticketFacts, fact) && all.some((f) => f.quantity?.subject === subject && !states(ticketFacts, f));
  if (premise && cueOf(statement)) return { bearing: 'cause', via: 'derivation' };
  return { bearing: null, incidental: all.every((f) => states(ticketFacts, f)) ? 'symptom' : 'context' };
}

const RANK = (r: Role) => (r.bearing !== null ? (r.via === 'cue' ? 0 : 1) : r.incidental === 'context' ? 2 : 3);

/** The role of each fact: the strongest over the statements that state it. */
export function rolesOf(facts: readonly Fact[], text: string, ticketFacts: readonly Fact[]): Map<string, Role> {
  const parts = statements(text).map((s) => ({ s, facts: factsOf(s.text) }));
  const out = new Map<string, Role>();
  for (const fact of facts) {
    const roles = parts.filter((p) => states(p.facts, fact)).map((p) => roleIn(fact, p.s, ticketFacts));
    const best = roles.sort((a, b) => RANK(a) - RANK(b))[0] ?? { bearing: null, incidental: 'context' };
    out.set(fact.key, best);
  }
  return out;
}
