/**
 * Sample external consumer of `aoc.evaluation.judged.v1`, written against plain kafkajs.
 *
 * External consumers do not import Auto-oncall packages: the contract is the topic name, the
 * envelope and the payload JSON Schema in docs/topics (aoc.evaluation.judged.v1.schema.json).
 * See evaluation-judged-consumer.md for credentials, ACLs and how to run it.
 *
 *   KAFKA_BROKERS=127.0.0.1:19092 KAFKA_USERNAME=ext-quality KAFKA_PASSWORD=... \
 *   KAFKA_GROUP_ID=ext-quality.verdicts node -r ./tools/register.js docs/consumers/evaluation-judged-consumer.ts
 */
import { Kafka, logLevel, type EachMessagePayload, type KafkaConfig } from 'kafkajs';

export const TOPIC = 'aoc.evaluation.judged.v1';
export const SUPPORTED_VERSION = 1;

const VERDICTS = ['ai_better', 'equivalent', 'different_but_valid', 'human_better', 'not_compared'] as const;
type Verdict = (typeof VERDICTS)[number];

/** The envelope every Auto-oncall message travels in (docs/topics/envelope.v1.schema.json). */
export interface Envelope {
  messageId: string;
  idempotencyKey: string;
  schema: { topic: string; version: number };
  runId?: string;
  ticketKey?: string;
  producedAt: string;
  producer: string;
  payload: unknown;
}

/** The fields of the evaluation.judged v1 payload this consumer uses (the schema has more). */
export interface EvaluationJudged {
  evaluationId: string;
  runId: string;
  ticketKey: string;
  answerFingerprint: string;
  judgedAt: string;
  verdict: Verdict;
  verdictReason: string;
  qualityScore: 0 | 1 | null;
}

export type Parsed = { ok: true; envelope: Envelope; judged: EvaluationJudged } | { ok: false; reason: string };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isString = (v: unknown): v is string => typeof v === 'string' && v.length > 0;

/** Parses and checks one message value; never throws. */
export function parseMessage(value: Buffer | null): Parsed {
  if (!value) return { ok: false, reason: 'empty message value' };
  let json: unknown;
  try {
    json = JSON.parse(value.toString('utf8'));
  } catch (err) {
    return { ok: false, reason: `value is not JSON: ${(err as Error).message}` };
  }
  if (!isObject(json)) return { ok: false, reason: 'envelope is not a JSON object' };
  for (const field of ['messageId', 'idempotencyKey', 'producedAt', 'producer'] as const) {
    if (!isString(json[field])) return { ok: false, reason: `envelope.${field} is missing or not a string` };
  }
  const schema = json['schema'];
  if (!isObject(schema) || !isString(schema['topic']) || typeof schema['version'] !== 'number') {
    return { ok: false, reason: 'envelope.schema must be {topic: string, version: number}' };
  }
  if (schema['topic'] !== TOPIC) return { ok: false, reason: `envelope.schema.topic is ${schema['topic']}, expected ${TOPIC}` };
  if (schema['version'] !== SUPPORTED_VERSION) {
    return { ok: false, reason: `envelope.schema.version ${schema['version']} is not supported (expected ${SUPPORTED_VERSION})` };
  }
  const payload = json['payload'];
  if (!isObject(payload)) return { ok: false, reason: 'envelope.payload is not a JSON object' };
  for (const field of ['evaluationId', 'runId', 'ticketKey', 'answerFingerprint', 'judgedAt'] as const) {
    if (!isString(payload[field])) return { ok: false, reason: `payload.${field} is missing or not a string` };
  }
  if (!VERDICTS.includes(payload['verdict'] as Verdict)) {
    return { ok: false, reason: `payload.verdict ${JSON.stringify(payload['verdict'])} is not one of ${VERDICTS.join('|')}` };
  }
  const score = payload['qualityScore'];
  if (score !== 0 && score !== 1 && score !== null) return { ok: false, reason: 'payload.qualityScore must be 0, 1 or null' };

  const envelope: Envelope = {
    messageId: json['messageId'] as string,
    idempotencyKey: json['idempotencyKey'] as string,
    schema: { topic: schema['topic'], version: schema['version'] },
    runId: isString(json['runId']) ? json['runId'] : undefined,
    ticketKey: isString(json['ticketKey']) ? json['ticketKey'] : undefined,
    producedAt: json['producedAt'] as string,
    producer: json['producer'] as string,
    payload,
  };
  const judged: EvaluationJudged = {
    evaluationId: payload['evaluationId'] as string,
    runId: payload['runId'] as string,
    ticketKey: payload['ticketKey'] as string,
    answerFingerprint: payload['answerFingerprint'] as string,
    judgedAt: payload['judgedAt'] as string,
    verdict: payload['verdict'] as Verdict,
    verdictReason: typeof payload['verdictReason'] === 'string' ? payload['verdictReason'] : '',
    qualityScore: score,
  };
  return { ok: true, envelope, judged };
}

function required(env: NodeJS.ProcessEnv, name: string): string {
  const value = env[name];
  if (!value) throw new Error(`${name} is required (see docs/consumers/evaluation-judged-consumer.md)`);
  return value;
}

export function kafkaConfigFromEnv(env: NodeJS.ProcessEnv = process.env): KafkaConfig {
  return {
    clientId: env['KAFKA_CLIENT_ID'] || 'evaluation-judged-sample',
    brokers: (env['KAFKA_BROKERS'] || '127.0.0.1:19092')
      .split(',')
      .map((b) => b.trim())
      .filter(Boolean),
    // Local Kafka speaks SASL_PLAINTEXT; set KAFKA_SSL=true for a broker with TLS (SASL_SSL).
    ssl: env['KAFKA_SSL'] === 'true',
    sasl: { mechanism: 'plain', username: required(env, 'KAFKA_USERNAME'), password: required(env, 'KAFKA_PASSWORD') },
    logLevel: logLevel.WARN,
  };
}

export async function run(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const kafka = new Kafka(kafkaConfigFromEnv(env));
  const consumer = kafka.consumer({ groupId: required(env, 'KAFKA_GROUP_ID') });
  // Delivery is at-least-once: remember recent message ids and skip redeliveries.
  // (A real consumer keeps processed ids in its own store, committed with its side effects.)
  const seen = new Set<string>();

  const shutdown = async (signal: string) => {
    console.error(`${signal}: disconnecting`);
    // Leave the group cleanly when the broker answers; do not hang when it does not.
    const timeout = new Promise<void>((resolve) => setTimeout(resolve, 5_000).unref());
    await Promise.race([consumer.disconnect().catch(() => undefined), timeout]);
    process.exit(0);
  };
  process.once('SIGINT', () => void shutdown('SIGINT'));
  process.once('SIGTERM', () => void shutdown('SIGTERM'));

  await consumer.connect();
  await consumer.subscribe({ topics: [TOPIC], fromBeginning: env['FROM_BEGINNING'] === 'true' });
  await consumer.run({
    eachMessage: async ({ partition, message }: EachMessagePayload) => {
      const parsed = parseMessage(message.value);
      if (!parsed.ok) {
        // Never crash on one bad message; log it and move on (or park it in your own dead-letter store).
        console.error(`skipped ${TOPIC}[${partition}]@${message.offset}: ${parsed.reason}`);
        return;
      }
      const { envelope, judged } = parsed;
      if (seen.has(envelope.messageId)) return;
      seen.add(envelope.messageId);
      if (seen.size > 100_000) seen.clear();
      const score = judged.qualityScore === null ? '-' : String(judged.qualityScore);
      console.log(
        `${judged.ticketKey}\t${judged.verdict}\tscore=${score}\trun=${judged.runId}\t` +
          `answer=${judged.answerFingerprint.slice(0, 12)}\tjudgedAt=${judged.judgedAt}`,
      );
    },
  });
}

if (require.main === module) {
  run().catch((err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  });
}
