import { factsOf, states } from './facts/facts';
import { NAMED, NOT_A_NAME, REQUESTED_KINDS, REQUEST_VERB, type RequestedKind } from './judge-rules.data';

/**
 * Requests in `/ao` feedback read as kinds of fact ("name the statement and the table" asks for a
 * statement and a table), and the names of each kind an answer gives. A request is met when the
 * new version names such a fact the previous version did not: saying "the table" is not naming one.
 */
const KINDS = Object.keys(REQUESTED_KINDS) as RequestedKind[];

/** Kinds of fact the reason asks for: a kind's noun after a request verb in the same clause. */
export function requestedKinds(reason: string): RequestedKind[] {
  const out = new Set<RequestedKind>();
  for (const clause of reason.split(/[.;!?\n]+/)) {
    const verb = REQUEST_VERB.exec(clause);
    if (!verb) continue;
    const scope = clause.slice(verb.index, verb.index + verb[0].length + 60);
    for (const kind of KINDS) if (REQUESTED_KINDS[kind].test(scope)) out.add(kind);
  }
  return [...out];
}

const norm = (s: string) => s.toLowerCase().replace(/[`"]/g, '').replace(/\s+/g, ' ').trim();

/** Names of one kind an answer gives (times as UTC clock keys). */
export function namesOf(kind: RequestedKind, text: string): string[] {
  if (kind === 'time') return factsOf(text).filter((f) => f.kind === 'time').map((f) => f.key);
  const found: string[] = [];
  for (const pattern of NAMED[kind]) {
    for (const m of text.matchAll(new RegExp(pattern.source, pattern.flags))) {
      const name = norm(m[1] ?? m[0]);
      if (kind !== 'statement' && NOT_A_NAME.test(name.replace(/\s*\(.*$/, ''))) continue;
      found.push(name);
    }
  }
  return [...new Set(found)];
}

/** Names of the kind the new version gives that the previous did not (times within tolerance). */
export function newNames(kind: RequestedKind, now: string, before: string): string[] {
  if (kind === 'time') {
    const old = factsOf(before).filter((f) => f.kind === 'time');
    return factsOf(now).filter((f) => f.kind === 'time' && !states(old, f)).map((f) => f.display);
  }
  const old = new Set(namesOf(kind, before));
  return namesOf(kind, now).filter((n) => !old.has(n));
}
