import { comment, execution, judged, published, timeline, type ReporterEvent } from './reporter-harness';

/**
 * One day of mixed runs, shared by the unit and integration suites. Times are written in
 * Asia/Shanghai (+08:00); the report day is 2026-11-20 (a Friday), its week starts on Monday
 * 2026-11-16. The expected numbers are spelled out in reports.spec.ts.
 */
export const DAY = '2026-11-20';
export const WEEK = '2026-11-16';

/** SUP-1: selected provider with degraded evidence, verdict `equivalent`: a runtime signal anyway. */
const sup1: ReporterEvent[] = [
  published('r1', 'SUP-1', '2026-11-20T10:00:00+08:00', { answer: 'a1' }),
  execution('r1', 'SUP-1', '2026-11-20T10:00:30+08:00', {
    evidenceStatus: 'degraded',
    providers: ['clinic'],
    failureCodes: ['CLINIC.TIMEOUT'],
    providerQueryEvents: [
      { scenarioId: 's1', queryId: 'q1', provider: 'clinic', outcome: 'complete', supplemental: false, at: '2026-11-20T10:00:01+08:00' },
      { scenarioId: 's1', queryId: 'q2', provider: 'clinic', outcome: 'failed', supplemental: false, at: '2026-11-20T10:00:02+08:00' },
      // The same logical query again after a retry: one logical call, its last outcome counts.
      { scenarioId: 's1', queryId: 'q2', provider: 'clinic', outcome: 'complete', supplemental: false, at: '2026-11-20T10:00:05+08:00' },
      { scenarioId: 's1', queryId: 'q3', provider: 'clinic', outcome: 'failed', supplemental: true, at: '2026-11-20T10:00:06+08:00' },
    ],
    providerHttpAttempts: [
      { scenarioId: 's1', queryId: 'q1', provider: 'clinic', statusClass: '200', at: '2026-11-20T10:00:01+08:00' },
      { scenarioId: 's1', queryId: 'q2', provider: 'clinic', statusClass: '502', at: '2026-11-20T10:00:02+08:00' },
      { scenarioId: 's1', queryId: 'q2', provider: 'clinic', statusClass: '200', at: '2026-11-20T10:00:05+08:00' },
      { scenarioId: 's1', queryId: 'q3', provider: 'clinic', statusClass: '400', at: '2026-11-20T10:00:06+08:00' },
    ],
    providerSystemEvents: [
      {
        scenarioId: 's1',
        queryId: 'q2',
        provider: 'clinic',
        statusSequence: [502, 200],
        result: 'recovered',
        upstreamError: 'Bad Gateway',
        requestId: 'req-1',
        at: '2026-11-20T10:00:05+08:00',
      },
    ],
  }),
  judged('e1', 'r1', 'SUP-1', 'a1', 'equivalent', '2026-11-21T09:00:00+08:00', ['missing owner']),
  timeline('SUP-1', 1, [
    comment('c1-1', 'customer', 'public', '2026-11-20T09:00:00+08:00', 'p99 doubled'),
    comment('c1-2', 'bot', 'public', '2026-11-20T10:01:00+08:00', 'Auto-oncall reply'),
    comment('c1-3', 'support', 'public', '2026-11-20T10:30:00+08:00', 'We found a missing index.'),
  ]),
];

/** SUP-2: explicit /ao wrong owns the quality although the latest verdict is ai_better. */
const sup2: ReporterEvent[] = [
  published('r2', 'SUP-2', '2026-11-20T12:00:00+08:00', { trigger: 'bot_assignment', answer: 'a2' }),
  execution('r2', 'SUP-2', '2026-11-20T12:00:10+08:00', {
    providers: ['manus'],
    providerQueryEvents: [{ scenarioId: 's1', queryId: 'q1', provider: 'manus', outcome: 'empty', supplemental: false, at: '2026-11-20T12:00:01+08:00' }],
    providerHttpAttempts: [{ scenarioId: 's1', queryId: 'q1', provider: 'manus', statusClass: 'other', at: '2026-11-20T12:00:01+08:00' }],
  }),
  judged('e2-old', 'r2', 'SUP-2', 'a2', 'human_better', '2026-11-20T20:00:00+08:00', ['g-old']),
  judged('e2', 'r2', 'SUP-2', 'a2', 'ai_better', '2026-11-21T08:00:00+08:00', ['g-a']),
  timeline('SUP-2', 1, [
    comment('c2-1', 'support', 'public', '2026-11-20T12:30:00+08:00', 'Root cause: the report query.'),
    comment('c2-2', 'support', 'internal', '2026-11-20T13:00:00+08:00', '/ao wrong: owner is wrong'),
  ]),
];

/** SUP-3: human_better; /ao human asks for a review but does not set the score; the continuation is not counted. */
const sup3: ReporterEvent[] = [
  published('r3', 'SUP-3', '2026-11-20T08:00:00+08:00', { answer: 'a3' }),
  execution('r3', 'SUP-3', '2026-11-20T08:00:10+08:00', { evidenceStatus: 'failed', responseStatus: 'failed', providers: ['clinic'] }),
  judged('e3', 'r3', 'SUP-3', 'a3', 'human_better', '2026-11-20T18:00:00+08:00', ['g-a', 'g-b', 'g-a']),
  published('r3c', 'SUP-3', '2026-11-20T09:00:00+08:00', { trigger: 'continuation', answer: 'a3c' }),
  execution('r3c', 'SUP-3', '2026-11-20T09:00:10+08:00', {
    evidenceStatus: 'degraded',
    providers: ['manus'],
    providerQueryEvents: [{ scenarioId: 's1', queryId: 'q9', provider: 'manus', outcome: 'failed', supplemental: false, at: '2026-11-20T09:00:01+08:00' }],
    providerHttpAttempts: [{ scenarioId: 's1', queryId: 'q9', provider: 'manus', statusClass: '500', at: '2026-11-20T09:00:01+08:00' }],
    providerSystemEvents: [
      { scenarioId: 's1', queryId: 'q9', provider: 'manus', statusSequence: [500, 500], result: 'failed', upstreamError: 'cont', requestId: 'req-c', at: '2026-11-20T09:00:01+08:00' },
    ],
  }),
  judged('e3c', 'r3c', 'SUP-3', 'a3c', 'ai_better', '2026-11-20T19:00:00+08:00', ['g-cont']),
  timeline('SUP-3', 1, [
    comment('c3-1', 'support', 'internal', '2026-11-20T08:20:00+08:00', 'Looking at TopSQL.'),
    comment('c3-2', 'engineer', 'internal', '2026-11-20T08:30:00+08:00', '/ao human please compare again'),
  ]),
];

/** SUP-4: a replay is not a production run. */
const sup4: ReporterEvent[] = [
  published('r4', 'SUP-4', '2026-11-20T15:00:00+08:00', { trigger: 'replay', mode: 'read', answer: 'a4' }),
  judged('e4', 'r4', 'SUP-4', 'a4', 'human_better', '2026-11-20T15:10:00+08:00', ['g-replay']),
];

/** SUP-5: one run at 23:59 on the 20th, one at 00:00 on the 21st (Shanghai). */
const sup5: ReporterEvent[] = [
  published('r5a', 'SUP-5', '2026-11-20T23:59:00+08:00', { answer: 'a5a' }),
  execution('r5a', 'SUP-5', '2026-11-20T23:59:30+08:00', {
    providerQueryEvents: [{ scenarioId: 's1', queryId: 'q1', provider: 'clinic', outcome: 'failed', supplemental: false, at: '2026-11-20T23:59:00+08:00' }],
    providerHttpAttempts: [{ scenarioId: 's1', queryId: 'q1', provider: 'clinic', statusClass: '500', at: '2026-11-20T23:59:00+08:00' }],
    providerSystemEvents: [
      {
        scenarioId: 's1',
        queryId: 'q1',
        provider: 'clinic',
        statusSequence: [500, 500, 500],
        result: 'failed',
        upstreamError: 'upstream timeout',
        requestId: 'req-2',
        at: '2026-11-20T23:59:00+08:00',
      },
    ],
  }),
  published('r5b', 'SUP-5', '2026-11-21T00:00:00+08:00', { answer: 'a5b' }),
  execution('r5b', 'SUP-5', '2026-11-21T00:00:30+08:00', {
    providerQueryEvents: [{ scenarioId: 's1', queryId: 'q1', provider: 'clinic', outcome: 'complete', supplemental: false, at: '2026-11-21T00:00:00+08:00' }],
    providerHttpAttempts: [{ scenarioId: 's1', queryId: 'q1', provider: 'clinic', statusClass: '200', at: '2026-11-21T00:00:00+08:00' }],
    providerSystemEvents: [
      {
        scenarioId: 's1',
        queryId: 'q1',
        provider: 'clinic',
        statusSequence: [503, 200],
        result: 'recovered',
        upstreamError: 'Service Unavailable',
        requestId: null,
        at: '2026-11-21T00:00:00+08:00',
      },
    ],
  }),
];

/** SUP-6: /ao accept on yesterday's answer; today's run publishes the same answer version and inherits it. */
const sup6: ReporterEvent[] = [
  published('r6a', 'SUP-6', '2026-11-19T10:00:00+08:00', { answer: 'a6' }),
  published('r6b', 'SUP-6', '2026-11-20T14:00:00+08:00', { trigger: 'bot_assignment', answer: 'a6' }),
  timeline('SUP-6', 1, [comment('c6-1', 'support', 'public', '2026-11-19T11:00:00+08:00', '/ao accept: good answer')]),
];

/** SUP-7: customer reply written publicly (anchor), no provider selected (no signal), no human reply after it. */
const sup7: ReporterEvent[] = [
  published('r7', 'SUP-7', '2026-11-20T16:00:00+08:00', { answer: 'a7' }),
  execution('r7', 'SUP-7', '2026-11-20T16:00:10+08:00', { evidenceStatus: 'failed', providers: ['none'] }),
  judged('e7', 'r7', 'SUP-7', 'a7', 'not_compared', '2026-11-21T10:00:00+08:00'),
  timeline('SUP-7', 1, [
    comment('c7-1', 'support', 'public', '2026-11-20T15:00:00+08:00', 'We are looking into it.'),
    comment('c7-2', 'bot', 'public', '2026-11-20T16:01:00+08:00', 'Auto-oncall reply'),
    comment('c7-3', 'customer', 'public', '2026-11-20T16:30:00+08:00', 'Thanks'),
  ]),
];

export const ALL_EVENTS: ReporterEvent[] = [...sup1, ...sup2, ...sup3, ...sup4, ...sup5, ...sup6, ...sup7];
