import { BASE_COMMENTS, analysisRequested, runPublished, startJudgeDb, timeline, type JudgeDb } from '../../test/judge-fixtures';
import { AnswerEntity, FrozenTicketEntity, TimelineEntity } from '../persistence/judge.entities';
import { loadTicketState } from '../persistence/ticket-state.repository';
import { applyEvent, emptyTicketState, type JudgeEvent } from '../judge-answer/ticket-state';
import { RecordInputsHandler } from './record-inputs.handler';

describe('recording the judge inputs', () => {
  let db: JudgeDb;
  const inputs = new RecordInputsHandler();

  beforeAll(async () => {
    db = await startJudgeDb();
  }, 120000);

  afterAll(async () => {
    await db?.stop();
  });

  const record = (event: JudgeEvent) => db.dataSource.transaction((m) => inputs.record(event, m));

  it('stores each input once, keeps the newest timeline, and reads back what applyEvent predicts', async () => {
    const events: JudgeEvent[] = [
      { kind: 'ticket', request: analysisRequested() },
      { kind: 'answer', run: runPublished() },
      { kind: 'timeline', timeline: timeline(7) },
      { kind: 'timeline', timeline: timeline(3, BASE_COMMENTS.slice(0, 1)) },
      { kind: 'answer', run: runPublished({ customerReplyMarkdown: 'changed later' }) },
      { kind: 'ticket', request: analysisRequested({ ticket: { ...analysisRequested().ticket, title: 'edited title' } }) },
    ];
    for (const e of events) await record(e);
    expect(await db.dataSource.manager.count(FrozenTicketEntity)).toBe(1);
    expect(await db.dataSource.manager.count(AnswerEntity)).toBe(1);
    expect((await db.dataSource.manager.findOneByOrFail(TimelineEntity, { ticketKey: 'SUP-1042' })).revision).toBe('7');
    const stored = await loadTicketState(db.dataSource.manager, 'SUP-1042');
    const predicted = events.reduce(applyEvent, emptyTicketState('SUP-1042'));
    expect(stored.tickets).toEqual(predicted.tickets);
    expect(stored.answers).toEqual(predicted.answers);
    expect(stored.timeline).toEqual(predicted.timeline);
  });
});
