import type { TimelineCommentV1 } from '@aoc/contracts';
import fc from 'fast-check';
import { bindFeedback } from './feedback-binding.binder';
import type { AnswerVersionRef, FeedbackAction, ParsedFeedback } from './feedback.types';

/*
 * Random ticket timelines: a few answers, a few comments from every role and visibility, each with
 * one to three versions (edits) whose bodies are valid commands, near-misses or prose. Each body
 * carries the parse result it must produce, so the oracles below never call the parser under test.
 */

const BASE = Date.parse('2026-11-20T10:00:00Z');
const FINGERPRINTS = ['a', 'b', 'c'].map((ch) => ch.repeat(64));
const ROLES = ['customer', 'support', 'engineer', 'bot', 'unknown'] as const;

/** Minute `m` after BASE, written in UTC or in +08:00 (same instant, different text). */
function at(minute: number, shanghai: boolean): string {
  const ms = BASE + minute * 60_000;
  if (!shanghai) return new Date(ms).toISOString();
  return `${new Date(ms + 8 * 3_600_000).toISOString().slice(0, 19)}+08:00`;
}

interface TaggedBody {
  body: string;
  expected: ParsedFeedback | null;
}

const validBody: fc.Arbitrary<TaggedBody> = fc
  .record({
    action: fc.constantFrom<FeedbackAction>('accept', 'revise', 'wrong', 'human'),
    separator: fc.constantFrom(':', '：', '.', '。', ' ', ': ', '\t', ' : '),
    lead: fc.constantFrom('', '  ', '\n \r\n'),
    reason: fc.constantFrom(
      { raw: '', clean: '' },
      { raw: 'owner is wrong', clean: 'owner is wrong' },
      { raw: 'two\r\nlines  ', clean: 'two\nlines' },
      { raw: ' \n\n  more below', clean: 'more below' },
      { raw: '负责人不对\n- 缺少 TiKV 证据', clean: '负责人不对\n- 缺少 TiKV 证据' },
    ),
  })
  .map(({ action, separator, lead, reason }) => ({ body: `${lead}/ao ${action}${separator}${reason.raw}`, expected: { action, reason: reason.clean } }));

const malformedBody: fc.Arbitrary<TaggedBody> = fc
  .constantFrom(
    '/ao ACCEPT: shouting',
    '/Ao revise',
    '/aox accept',
    '/ao  acceptable',
    '/ao accepted: x',
    '/ao approve',
    '/ao',
    '/ao:wrong',
    '> /ao wrong: quoting someone',
    '```\n/ao revise\n```',
    '`/ao accept`',
    'fyi\n/ao wrong: on the second line',
    'thanks, that fixed it',
    '',
  )
  .map((body) => ({ body, expected: null }));

const bodyArb = fc.oneof({ arbitrary: validBody, weight: 3 }, { arbitrary: malformedBody, weight: 2 });

const commentSpec = fc.record({
  createdMinute: fc.integer({ min: 0, max: 24 }),
  createdShanghai: fc.boolean(),
  authorRole: fc.constantFrom(...ROLES),
  visibility: fc.constantFrom<'public' | 'internal'>('public', 'internal'),
  // Distinct edit offsets: two versions of one comment are never edited at the same instant.
  versions: fc.uniqueArray(
    fc.record({ editDelta: fc.integer({ min: 0, max: 6 }), shanghai: fc.boolean(), body: bodyArb, smuggled: fc.boolean() }),
    { minLength: 1, maxLength: 3, selector: (v) => v.editDelta },
  ),
});

const answerSpec = fc.record({ minute: fc.integer({ min: 0, max: 20 }), fingerprint: fc.constantFrom(...FINGERPRINTS), shanghai: fc.boolean() });

interface World {
  answers: AnswerVersionRef[];
  versions: TimelineCommentV1[];
  expectedParse: Map<TimelineCommentV1, ParsedFeedback | null>;
}

const worldArb: fc.Arbitrary<World> = fc.record({ answers: fc.array(answerSpec, { maxLength: 5 }), comments: fc.array(commentSpec, { maxLength: 8 }) }).map(({ answers, comments }) => {
  const expectedParse = new Map<TimelineCommentV1, ParsedFeedback | null>();
  const versions = comments.flatMap((spec, i) =>
    spec.versions.map((v) => {
      const comment: TimelineCommentV1 = {
        id: `c${i}`,
        authorRole: spec.authorRole,
        visibility: spec.visibility,
        createdAt: at(spec.createdMinute, spec.createdShanghai),
        updatedAt: at(spec.createdMinute + v.editDelta, v.shanghai),
        body: v.body.body,
        visibleToAi: false,
        // A producer's feedback field must never matter.
        feedback: v.smuggled ? { action: 'accept', reason: 'smuggled' } : null,
      };
      expectedParse.set(comment, v.body.expected);
      return comment;
    }),
  );
  return {
    answers: answers.map((a, i) => ({ runId: `run-${i}`, answerFingerprint: a.fingerprint, publishedAt: at(a.minute, a.shanghai) })),
    versions,
    expectedParse,
  };
});

/** The items in random order, with random extra copies (equal by value, distinct objects). */
function scrambled<T extends object>(items: readonly T[]): fc.Arbitrary<T[]> {
  if (items.length === 0) return fc.constant([]);
  return fc.array(fc.nat({ max: items.length - 1 }), { maxLength: items.length * 2 }).chain((copies) => {
    const all = [...items, ...copies.map((i) => ({ ...items[i] }))];
    return fc.shuffledSubarray(all, { minLength: all.length, maxLength: all.length });
  });
}

const scenarioArb = worldArb.chain((world) => fc.record({ world: fc.constant(world), comments: scrambled(world.versions), answers: scrambled(world.answers) }));

/** The ordered, de-duplicated form of the same input. */
function ordered(world: World): { comments: TimelineCommentV1[]; answers: AnswerVersionRef[] } {
  return {
    comments: [...world.versions].sort((a, b) => Date.parse(a.updatedAt) - Date.parse(b.updatedAt) || a.id.localeCompare(b.id)),
    answers: [...world.answers].sort((a, b) => Date.parse(a.publishedAt) - Date.parse(b.publishedAt) || a.runId.localeCompare(b.runId)),
  };
}

function trusted(comment: { authorRole: string; visibility: 'public' | 'internal' }): boolean {
  return comment.visibility === 'public' ? comment.authorRole === 'support' || comment.authorRole === 'engineer' : comment.authorRole !== 'bot' && comment.authorRole !== 'customer';
}

/** Oracle: the latest answer strictly before `createdAt`; equal instants are broken by run id. */
function expectedTarget(answers: readonly AnswerVersionRef[], createdAt: string): AnswerVersionRef | null {
  const before = answers.filter((a) => Date.parse(a.publishedAt) < Date.parse(createdAt));
  before.sort((a, b) => Date.parse(a.publishedAt) - Date.parse(b.publishedAt) || (a.runId < b.runId ? -1 : 1));
  return before.at(-1) ?? null;
}

/** Oracle: per trusted comment id, its newest version that carries a command. */
function expectedCommands(world: World): Map<string, { comment: TimelineCommentV1; command: ParsedFeedback }> {
  const result = new Map<string, { comment: TimelineCommentV1; command: ParsedFeedback }>();
  for (const comment of world.versions) {
    const command = world.expectedParse.get(comment) ?? null;
    if (command === null || !trusted(comment)) continue;
    const current = result.get(comment.id);
    if (current === undefined || Date.parse(comment.updatedAt) > Date.parse(current.comment.updatedAt)) result.set(comment.id, { comment, command });
  }
  return result;
}

const RUNS = { numRuns: 300 };

describe('bindFeedback properties', () => {
  it('(1) gives the same result for shuffled, duplicated input as for the ordered, de-duplicated input', () => {
    fc.assert(
      fc.property(scenarioArb, ({ world, comments, answers }) => {
        const canonical = ordered(world);
        expect(bindFeedback([], comments, answers)).toEqual(bindFeedback([], canonical.comments, canonical.answers));
      }),
      RUNS,
    );
  });

  it('(1) also with existing bindings carried in', () => {
    fc.assert(
      fc.property(scenarioArb, fc.nat(), ({ world, comments, answers }, cut) => {
        const canonical = ordered(world);
        const existing = bindFeedback([], canonical.comments.slice(0, cut % (canonical.comments.length + 1)), canonical.answers).bindings;
        const scrambledExisting = [...existing].reverse().concat(existing.map((b) => ({ ...b })));
        expect(bindFeedback(scrambledExisting, comments, answers)).toEqual(bindFeedback(existing, canonical.comments, canonical.answers));
      }),
      RUNS,
    );
  });

  it('(2) binds each command comment at most once, to the latest run published strictly before it', () => {
    fc.assert(
      fc.property(scenarioArb, ({ world, comments, answers }) => {
        const { bindings } = bindFeedback([], comments, answers);
        expect(new Set(bindings.map((b) => b.commentId)).size).toBe(bindings.length);
        for (const binding of bindings) {
          const run = world.answers.find((a) => a.runId === binding.runId);
          expect(run).toBeDefined();
          expect(Date.parse(run!.publishedAt)).toBeLessThan(Date.parse(binding.commentCreatedAt));
          expect(binding.runId).toBe(expectedTarget(world.answers, binding.commentCreatedAt)?.runId);
          expect(binding.answerFingerprint).toBe(run!.answerFingerprint);
        }
      }),
      RUNS,
    );
  });

  it('(3) never binds, nor reports as unbound, an untrusted comment or one without a command', () => {
    fc.assert(
      fc.property(scenarioArb, ({ world, comments, answers }) => {
        const commands = expectedCommands(world);
        const untrusted = new Set(world.versions.filter((c) => !trusted(c)).map((c) => c.id));
        const { bindings, unbound } = bindFeedback([], comments, answers);
        const reported = [...bindings.map((b) => b.commentId), ...unbound.map((c) => c.id)];
        for (const id of reported) {
          expect(untrusted.has(id)).toBe(false);
          expect(commands.has(id)).toBe(true);
        }
        for (const b of bindings) expect(trusted(b)).toBe(true);
      }),
      RUNS,
    );
  });

  it('(4) is idempotent: binding again over its own output changes nothing', () => {
    fc.assert(
      fc.property(scenarioArb, ({ comments, answers }) => {
        const first = bindFeedback([], comments, answers);
        expect(bindFeedback(first.bindings, comments, answers)).toEqual(first);
        expect(bindFeedback(first.bindings, [...comments].reverse(), answers)).toEqual(first);
      }),
      RUNS,
    );
  });

  it('(5) loses nothing: every trusted command is bound with its newest command version, or reported unbound', () => {
    fc.assert(
      fc.property(scenarioArb, ({ world, comments, answers }) => {
        const { bindings, unbound } = bindFeedback([], comments, answers);
        const boundIds = new Map(bindings.map((b) => [b.commentId, b]));
        const unboundIds = new Set(unbound.map((c) => c.id));
        for (const [id, { comment, command }] of expectedCommands(world)) {
          const target = expectedTarget(world.answers, comment.createdAt);
          if (target === null) {
            expect(unboundIds.has(id)).toBe(true);
            expect(boundIds.has(id)).toBe(false);
          } else {
            expect(boundIds.get(id)).toMatchObject({ runId: target.runId, action: command.action, reason: command.reason, commentCreatedAt: comment.createdAt });
            expect(Date.parse(boundIds.get(id)!.commentUpdatedAt)).toBe(Date.parse(comment.updatedAt));
            expect(unboundIds.has(id)).toBe(false);
          }
        }
      }),
      RUNS,
    );
  });

  it('ends in the same bindings whether the timeline arrives at once or in pieces', () => {
    fc.assert(
      fc.property(scenarioArb, fc.array(fc.nat(), { maxLength: 4 }), ({ comments, answers }, cuts) => {
        const points = [...new Set(cuts.map((c) => c % (comments.length + 1)))].sort((a, b) => a - b);
        let bindings = bindFeedback([], [], answers).bindings;
        let from = 0;
        for (const to of [...points, comments.length]) {
          bindings = bindFeedback(bindings, comments.slice(from, to), answers).bindings;
          from = to;
        }
        expect(bindings).toEqual(bindFeedback([], comments, answers).bindings);
      }),
      RUNS,
    );
  });

  it('never moves an existing binding to another run, whatever answers and edits arrive later', () => {
    fc.assert(
      fc.property(scenarioArb, fc.array(answerSpec, { maxLength: 4 }), ({ world, comments, answers }, laterSpecs) => {
        const first = bindFeedback([], comments, answers).bindings;
        const more = laterSpecs.map((a, i) => ({ runId: `late-${i}`, answerFingerprint: a.fingerprint, publishedAt: at(a.minute, a.shanghai) }));
        const edits = world.versions.map((c) => ({ ...c, body: '/ao wrong: edited later', updatedAt: at(100, false) }));
        const second = bindFeedback(first, [...comments, ...edits], [...answers, ...more]).bindings;
        for (const before of first) {
          const after = second.find((b) => b.commentId === before.commentId);
          expect(after).toMatchObject({ runId: before.runId, answerFingerprint: before.answerFingerprint, commentCreatedAt: before.commentCreatedAt });
          // Trusted edits update the command; the binding itself stays.
          expect(after).toMatchObject({ action: 'wrong', reason: 'edited later' });
        }
      }),
      RUNS,
    );
  });
});
