import { ConfigError } from '@aoc/config';
import { Topics, grantOf } from '@aoc/contracts';
import { createJudgeModel } from './judge-answer/judge-model.provider';
import { JudgeBusController } from './judge-bus.controller';
import { judgeDefinition } from './judge.definition';

/** Topic names the controller's handlers are bound to (NestJS event-pattern metadata). */
function subscribedTopics(): string[] {
  const proto = JudgeBusController.prototype as unknown as Record<string, unknown>;
  const names = Object.getOwnPropertyNames(JudgeBusController.prototype).filter((n) => n !== 'constructor');
  return names.flatMap((n) => (Reflect.getMetadata('microservices:pattern', proto[n] as object) as string[] | undefined) ?? []);
}

describe('judge definition', () => {
  it('subscribes to the frozen ticket, published answers and timelines, and to no execution topic', () => {
    const topics = subscribedTopics();
    const handlers = topics.filter((t) => !t.endsWith('#prepare'));
    expect(new Set(handlers)).toEqual(new Set([Topics.ticketAnalysisRequested.name, Topics.runPublished.name, Topics.ticketTimelineUpdated.name]));
    for (const t of topics) expect(t).not.toContain('execution');
    expect(topics.map((t) => t.replace('#prepare', ''))).not.toContain(Topics.runExecutionRecorded.name);
    // Everything it subscribes to is inside the judge's grant; the grant excludes execution state.
    const grant = grantOf('judge');
    for (const t of handlers) expect(grant.subscribe).toContain(t);
    expect(grant.subscribe).not.toContain(Topics.runExecutionRecorded.name);
  });

  it('publishes evaluation.judged only', () => {
    expect(judgeDefinition.publishes.map((t) => t.name)).toEqual([Topics.evaluationJudged.name]);
  });

  it('defaults to the built-in rubric judge and fails fast on bad model settings, naming the key', () => {
    expect(createJudgeModel({}).description).toEqual({ engine: 'builtin' });
    expect(() => createJudgeModel({ AOC_MODEL_ENGINE_JUDGE: 'openai', AOC_MODEL_API_KEY_JUDGE: 'sk-never-shown-123456' })).toThrow(ConfigError);
    try {
      createJudgeModel({ AOC_MODEL_ENGINE_JUDGE: 'openai', AOC_MODEL_API_KEY_JUDGE: 'sk-never-shown-123456' });
    } catch (error) {
      expect((error as Error).message).toContain('AOC_MODEL_BASE_URL_JUDGE');
      expect((error as Error).message).not.toContain('sk-never-shown');
    }
    const described = createJudgeModel({ AOC_MODEL_ENGINE_JUDGE: 'openai', AOC_MODEL_BASE_URL_JUDGE: 'http://127.0.0.1:1/v1', AOC_MODEL_NAME_JUDGE: 'j', AOC_MODEL_API_KEY_JUDGE: 'sk-never-shown-123456' }).description;
    expect(described).toMatchObject({ engine: 'openai', model: 'j', apiKey: '***' });
  });
});
