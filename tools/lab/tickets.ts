// Incident lab recorder: the ticket a customer would write about a case: the symptom, never the
// cause (tools/lab/tickets.spec.ts checks no mode is named), worded differently case by case.
import { seedOf } from '../launcher/src/diagnosis-bench/scenarios';
import type { FailureMode } from '../launcher/src/diagnosis-bench/lab-case';

type Symptom = 'slow' | 'errors' | 'stale' | 'uploads' | 'exports' | 'blip' | 'vague';

const SYMPTOM: Record<FailureMode, Symptom> = {
  'cpu-load': 'slow',
  'cpu-statement': 'slow',
  'connection-exhaustion': 'errors',
  'lock-contention': 'slow',
  deadlocks: 'errors',
  'storage-full-data': 'uploads',
  'storage-full-wal': 'errors',
  'storage-full-temp': 'exports',
  'replication-lag-write-volume': 'stale',
  'replication-lag-replica-capacity': 'stale',
  'replication-lag-replica-query': 'stale',
  'checkpoint-storm': 'slow',
  'io-limit': 'slow',
  'memory-pressure': 'slow',
  failover: 'blip',
  restart: 'blip',
  network: 'errors',
  'backup-maintenance': 'slow',
  'batch-job': 'slow',
  'changefeed-lag': 'stale',
  hotspot: 'slow',
  'plan-regression': 'slow',
  healthy: 'vague',
};

const TITLES: Record<Symptom, string[]> = {
  slow: ['Checkout is timing out', 'API latency way up', 'Everything is slow on {c}', 'Orders service sluggish', 'Slow responses from the database'],
  errors: ['Requests failing on {c}', 'Database errors in our app', 'Workers keep failing', 'Intermittent 500s from the orders API'],
  stale: ['Dashboard shows old numbers', 'Read endpoints return outdated data', 'Order status not updating for customers'],
  uploads: ['File uploads are failing', 'Cannot save new documents', 'Upload endpoint returns errors'],
  exports: ['CSV export keeps erroring out', 'Nightly report queries fail', 'Export job broken'],
  blip: ['Short outage on {c}', 'App lost the database for a moment', 'Blip in production'],
  vague: ['Is the database OK?', 'Please check {c}', 'Users complain the app feels slow', 'Latency alert, please confirm'],
};

const BODIES: Record<Symptom, string[]> = {
  slow: [
    'Our checkout is timing out {since} on cluster {c}. Customers are abandoning carts, please help.',
    'p95 latency of the orders API is several times higher than normal {since}. The app runs against {c}.',
    'Pages that usually load in 200 ms take seconds now {since}. Database is {c}. Nothing changed on our side as far as we know.',
    'Our background workers and the API both got much slower {since} ({c}). Can you take a look?',
  ],
  errors: [
    'We are seeing failed requests and database errors in our application logs {since}. Cluster {c}.',
    'Some of our API calls fail with errors from the database {since}, others work. Cluster is {c}.',
    'Our job workers keep failing and starting over {since}. They all talk to {c}.',
  ],
  stale: [
    'Our reporting dashboard shows numbers that are clearly old {since}. It reads from {c}.',
    'Customers see an outdated order status on the read endpoints {since}, while the admin page is right. Cluster {c}.',
  ],
  uploads: ['Saving new uploads fails {since} on {c}; everything else seems to work.', 'The upload endpoint returns errors {since}. Cluster {c}, please check urgently.'],
  exports: ['Our CSV export fails every time {since}. It runs on {c}.', 'The reporting queries of our export job error out {since} (cluster {c}).'],
  blip: [
    'We had requests failing for a short while {since} on {c}; it came back by itself. What happened?',
    'The application lost its database connection briefly {since}. Cluster {c}. Please explain.',
  ],
  vague: [
    'Some users say the app feels slow {since}. Can you check whether {c} is OK?',
    'Our monitoring fired a latency alert {since} for the service that uses {c}. Please confirm the database is fine.',
    'Not sure if it is the database, but things feel off {since}. Cluster {c}.',
  ],
};

const pick = <T>(list: readonly T[], seed: number): T => list[seed % list.length];

const hhmm = (ms: number) => new Date(ms).toISOString().slice(11, 16);

/** "since about 10:20 UTC" (the onset rounded down to 5 minutes), or a vaguer phrase, or nothing. */
export function sincePhrase(onsetMs: number | null, windowStartMs: number, seed: number): string {
  const style = seed % 4;
  if (onsetMs === null || onsetMs < windowStartMs) return ['for the last hour or so', 'since this morning', 'today', 'for a while now'][style];
  const rounded = Math.floor(onsetMs / 300_000) * 300_000;
  return ['since about {t} UTC', 'since {t} UTC', 'starting around {t} UTC', 'since earlier today'][style].replace('{t}', hhmm(rounded));
}

export interface TicketInput {
  id: string;
  /** The ticket key (unique across the suite). */
  key: string;
  mode: FailureMode;
  cluster: string;
  /** When the customer noticed: the fault's onset, or null (healthy, or a vague ticket). */
  noticedMs: number | null;
  windowStartMs: number;
  cutoffMs: number;
}

export function writeTicket(input: TicketInput) {
  const seed = seedOf(input.id);
  const symptom = SYMPTOM[input.mode];
  const since = sincePhrase(input.noticedMs, input.windowStartMs, seed >>> 3);
  const fill = (text: string) => text.replaceAll('{c}', input.cluster).replaceAll('{since}', since);
  let description = fill(pick(BODIES[symptom], seed >>> 5));
  if (!description.includes(input.cluster)) description += ` Cluster: ${input.cluster}.`;
  const createdAt = input.cutoffMs - (1 + (seed % 6)) * 60_000;
  return {
    mode: 'read' as const,
    trigger: 'replay' as const,
    cutoff: new Date(input.cutoffMs).toISOString().replace('.000Z', 'Z'),
    ticket: {
      key: input.key,
      title: fill(pick(TITLES[symptom], seed >>> 9)),
      description: description.charAt(0).toUpperCase() + description.slice(1),
      reporterRole: 'customer' as const,
      createdAt: new Date(createdAt).toISOString().replace('.000Z', 'Z'),
      labels: [] as string[],
      comments: [] as never[],
    },
  };
}
