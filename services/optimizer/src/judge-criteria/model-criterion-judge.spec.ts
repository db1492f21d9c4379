import { chatCompletion, startFakeModel, type FakeChatCompletionsServer } from '@aoc/agent-runtime/testing';
import { Criterion, type JudgedAnswer } from './criterion-judge';
import { judgeCaseWithModel, modelFreeTextJudge } from './model-criterion-judge';

const answer: JudgedAnswer = { customerReplyMarkdown: 'The plan changed after ANALYZE.', internalHandoffMarkdown: '**Leading mechanism (moderate):** plan change.', decision: 'human_required', requestedContext: [], queriedFamilies: [] };
const ok = { responseGeneration: 'complete', providerCapability: 'verified' } as const;
const criteria = [Criterion.parse({ id: 'why-plan', kind: 'free_text', text: 'explains why the optimizer changed the plan' }), Criterion.parse({ id: 'decision', kind: 'decision', decision: 'human_required' })];

describe('free-text criteria through the model judge (fake server)', () => {
  let server: FakeChatCompletionsServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('asks the model with the criterion and the two messages only, and keeps typed checks deterministic', async () => {
    const started = await startFakeModel('judge', () => ({ status: 200, json: chatCompletion(JSON.stringify({ status: 'met', reason: 'it names ANALYZE as the trigger' })) }));
    server = started.server;
    const judged = await judgeCaseWithModel('SUP-1', criteria, answer, ok, modelFreeTextJudge(started.runtime));
    expect(judged.results).toEqual([
      { criterionId: 'why-plan', status: 'met', reason: 'it names ANALYZE as the trigger' },
      { criterionId: 'decision', status: 'met', reason: 'decision human_required' },
    ]);
    expect(started.server.requests).toHaveLength(1);
    const sent = JSON.parse(started.server.requests[0].body.messages.at(-1)?.content ?? '{}') as Record<string, unknown>;
    expect(Object.keys(sent).sort()).toEqual(['criterion', 'customerReplyMarkdown', 'internalHandoffMarkdown']);
  });

  it('leaves the criterion inconclusive when the model fails, and applies execution state after it', async () => {
    const started = await startFakeModel('judge', () => ({ status: 500, json: { error: { message: 'down' } } }));
    server = started.server;
    const judged = await judgeCaseWithModel('SUP-1', criteria, answer, ok, modelFreeTextJudge(started.runtime));
    expect(judged.results[0]).toMatchObject({ status: 'inconclusive', reason: expect.stringMatching(/^the model judge failed/) });
    const failed = await judgeCaseWithModel('SUP-1', criteria, answer, { ...ok, responseGeneration: 'failed' }, async (c) => ({ criterionId: c.id, status: 'met', reason: 'x' }));
    expect(failed.results.map((r) => r.status)).toEqual(['inconclusive', 'inconclusive']);
  });
});
