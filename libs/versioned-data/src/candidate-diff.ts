import { z } from 'zod';
import { isProtected, type DataManifest, type Tunable } from './manifest';
import { RepoPath, sha256 } from './versioned-data';

/**
 * A candidate is a list of edits to versioned data files, each a JSON-pointer replace of one
 * value. The policy admits only declared data paths, within their size limit and the manifest's
 * file count; a protected path is refused with its own code so the optimizer hands it to a human.
 */

export const DataEdit = z
  .object({
    path: RepoPath,
    pointer: z.string().regex(/^(\/[A-Za-z0-9_-]+)+$/),
    value: z.unknown(),
    /** Why, in a sentence (shown in the commit and on the topic). */
    because: z.string().min(1).max(300),
  })
  .strict();
export type DataEdit = z.infer<typeof DataEdit>;

export const CandidateDiff = z.object({ edits: z.array(DataEdit).min(1).max(10) }).strict();
export type CandidateDiff = z.infer<typeof CandidateDiff>;

export type PolicyVerdict =
  | { ok: true }
  | { ok: false; code: 'CANDIDATE.PROTECTED_PATH' | 'CANDIDATE.UNDECLARED_PATH' | 'CANDIDATE.UNDECLARED_TUNABLE' | 'CANDIDATE.TOO_LARGE' | 'CANDIDATE.TOO_MANY_FILES' | 'CANDIDATE.INVALID'; detail: string };

const Families = z.array(z.string().regex(/^[a-z_]+$/)).max(50);
/** Words a ticket is matched against: trimmed, lower-case, one line, distinct. */
const Words = z
  .array(z.string().min(1).max(60).refine((w) => w === w.toLowerCase() && w === w.trim() && !/[\r\n\t]/.test(w)))
  .max(100)
  .refine((ws) => new Set(ws).size === ws.length);

/** The tunable an edit's pointer falls under: the pointer itself, a family-edges entry, or a word list of a word-lists entry. */
export function tunableOf(tunables: readonly Tunable[], pointer: string): Tunable | undefined {
  const depth = (p: string) => p.split('/').length;
  return tunables.find((x) => {
    if (pointer === x.pointer) return x.kind !== 'word_lists';
    if (!pointer.startsWith(`${x.pointer}/`)) return false;
    if (x.kind === 'family_edges') return depth(pointer) === depth(x.pointer) + 1;
    return x.kind === 'word_lists' && depth(pointer) === depth(x.pointer) + 2 && pointer.endsWith(`/${x.wordsKey}`);
  });
}

/** Whether a value fits the tunable an edit falls under (a map entry of family edges is its list). */
function fitsTunable(t: Tunable, pointer: string, value: unknown): string | null {
  if (t.kind === 'number') {
    if (pointer !== t.pointer) return `${pointer}: only ${t.pointer} itself is tunable`;
    return typeof value === 'number' && value >= t.min && value <= t.max ? null : `${pointer}: must be a number in [${t.min}, ${t.max}]`;
  }
  if (t.kind === 'family_set') return pointer === t.pointer && Families.safeParse(value).success ? null : `${pointer}: must be a list of family ids`;
  if (t.kind === 'word_lists') return Words.safeParse(value).success ? null : `${pointer}: must be a list of distinct trimmed lower-case words (at most 100, 60 characters each)`;
  const entry = pointer !== t.pointer;
  const ok = entry ? Families.safeParse(value).success : z.record(z.string(), Families).safeParse(value).success;
  return ok ? null : `${pointer}: must be ${entry ? 'a list of family ids' : 'a map of family -> family ids'}`;
}

/** The digest of a candidate: its edits in a canonical order. */
export function candidateDigest(diff: CandidateDiff): string {
  const edits = [...diff.edits].sort((a, b) => a.path.localeCompare(b.path) || a.pointer.localeCompare(b.pointer)).map((e) => [e.path, e.pointer, e.value]);
  return `cand:${sha256(JSON.stringify(edits)).slice(0, 32)}`;
}

function setPointer(doc: unknown, pointer: string, value: unknown): unknown {
  const keys = pointer.split('/').slice(1);
  const root: unknown = structuredClone(doc);
  let node = root as Record<string, unknown>;
  for (const [i, key] of keys.entries()) {
    if (node === null || typeof node !== 'object' || Array.isArray(node) || !(key in node)) throw new Error(`${pointer}: no such key ${key}`);
    if (i === keys.length - 1) node[key] = value;
    else node = node[key] as Record<string, unknown>;
  }
  return root;
}

export function readPointer(doc: unknown, pointer: string): unknown {
  let node = doc;
  for (const key of pointer.split('/').slice(1)) {
    if (node === null || typeof node !== 'object' || Array.isArray(node) || !(key in (node as object))) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

/** Applies the edits to the current file texts; returns the new texts (pretty, newline-terminated). */
export function applyCandidate(diff: CandidateDiff, read: (path: string) => string): Map<string, string> {
  const docs = new Map<string, unknown>();
  for (const e of diff.edits) {
    const doc = docs.has(e.path) ? docs.get(e.path) : (JSON.parse(read(e.path)) as unknown);
    docs.set(e.path, setPointer(doc, e.pointer, e.value));
  }
  return new Map([...docs].map(([path, doc]) => [path, `${JSON.stringify(doc, null, 2)}\n`]));
}

/** The policy check: parse, declared paths only, nothing protected, within size and file limits. */
export function checkCandidate(raw: unknown, manifest: DataManifest, read: (path: string) => string): PolicyVerdict & { diff?: CandidateDiff; files?: Map<string, string> } {
  const parsed = CandidateDiff.safeParse(raw);
  if (!parsed.success) return { ok: false, code: 'CANDIDATE.INVALID', detail: parsed.error.issues.slice(0, 3).map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ') };
  const diff = parsed.data;
  const paths = [...new Set(diff.edits.map((e) => e.path))];
  const protectedPath = paths.find((p) => isProtected(manifest, p));
  if (protectedPath) return { ok: false, code: 'CANDIDATE.PROTECTED_PATH', detail: `${protectedPath} is protected` };
  const undeclared = paths.find((p) => !manifest.files.some((f) => f.path === p));
  if (undeclared) return { ok: false, code: 'CANDIDATE.UNDECLARED_PATH', detail: `${undeclared} is not declared versioned data` };
  for (const e of diff.edits) {
    const tunables = manifest.files.find((f) => f.path === e.path)?.tunables ?? [];
    const t = tunableOf(tunables, e.pointer);
    if (!t) return { ok: false, code: 'CANDIDATE.UNDECLARED_TUNABLE', detail: `${e.path} ${e.pointer} is not a declared tunable` };
    const misfit = fitsTunable(t, e.pointer, e.value);
    if (misfit) return { ok: false, code: 'CANDIDATE.INVALID', detail: misfit };
  }
  if (paths.length > manifest.maxFilesPerCandidate) return { ok: false, code: 'CANDIDATE.TOO_MANY_FILES', detail: `${paths.length} files; at most ${manifest.maxFilesPerCandidate}` };
  let files: Map<string, string>;
  try {
    files = applyCandidate(diff, read);
  } catch (error) {
    return { ok: false, code: 'CANDIDATE.INVALID', detail: error instanceof Error ? error.message : String(error) };
  }
  for (const [path, text] of files) {
    const limit = manifest.files.find((f) => f.path === path)?.maxBytes ?? 0;
    if (Buffer.byteLength(text) > limit) return { ok: false, code: 'CANDIDATE.TOO_LARGE', detail: `${path} would be ${Buffer.byteLength(text)} bytes; at most ${limit}` };
  }
  return { ok: true, diff, files };
}
