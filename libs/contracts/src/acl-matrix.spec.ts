import { brokerAclMatrix } from './acl-matrix';
import { dlqTopicOf } from './envelope';
import { TOPIC_REGISTRY, Topics, grantOf, roleGrants } from './registry';
import { ROLES, type Role, consumerGroupPrefix, isRole, principalName } from './roles';

const DIAGNOSIS_SIDE = /^aoc\.(scenario|diagnosis|run)\./;

/** The expected matrix, from the DESIGN.md topic table. */
const EXPECTED: Record<Role, { publish: string[]; subscribe: string[] }> = {
  router: {
    publish: [
      Topics.ticketAnalysisRequested.name,
      Topics.scenarioSelected.name,
      Topics.evidenceRequested.name,
      Topics.diagnosisHandoffConsumed.name,
      Topics.runPublished.name,
      Topics.runExecutionRecorded.name,
      Topics.ticketTimelineUpdated.name,
    ],
    subscribe: [
      Topics.ticketAnalysisRequested.name,
      Topics.scenarioSelected.name,
      Topics.evidenceBatchMaterialized.name,
      Topics.diagnosisHandoffConsumed.name,
      Topics.providerInventoryListed.name,
    ],
  },
  evidence: { publish: [Topics.evidenceBatchPlanned.name, Topics.evidenceCatalogRequested.name], subscribe: [Topics.evidenceRequested.name, Topics.evidenceCatalogListed.name] },
  'provider-executor': {
    publish: [Topics.evidenceBatchMaterialized.name, Topics.evidenceCatalogListed.name, Topics.providerInventoryListed.name],
    subscribe: [Topics.evidenceBatchPlanned.name, Topics.evidenceCatalogRequested.name],
  },
  judge: {
    publish: [Topics.evaluationJudged.name],
    subscribe: [Topics.ticketAnalysisRequested.name, Topics.runPublished.name, Topics.ticketTimelineUpdated.name],
  },
  reporter: {
    publish: [],
    subscribe: [Topics.runPublished.name, Topics.runExecutionRecorded.name, Topics.ticketTimelineUpdated.name, Topics.evaluationJudged.name],
  },
  optimizer: {
    publish: [Topics.optimizerCandidateEnqueued.name],
    subscribe: [Topics.runPublished.name, Topics.runExecutionRecorded.name, Topics.ticketTimelineUpdated.name, Topics.evaluationJudged.name],
  },
};

const sorted = (xs: readonly string[]): string[] => [...xs].sort();
const everything = (role: Role): string[] => {
  const g = grantOf(role);
  const p = brokerAclMatrix().principals.find((x) => x.role === role);
  return [...g.publish, ...g.subscribe, ...g.deadLetter, ...(p?.read ?? []), ...(p?.write ?? [])];
};

describe('role grants', () => {
  it('has one grant per role', () => {
    expect(roleGrants().map((g) => g.role)).toEqual([...ROLES]);
    expect(() => grantOf('nobody' as Role)).toThrow(/unknown role/);
    expect(isRole('judge')).toBe(true);
    expect(isRole('external')).toBe(false);
  });

  it.each(ROLES)('grants %s exactly what the design table says', (role) => {
    const g = grantOf(role);
    expect(sorted(g.publish)).toEqual(sorted(EXPECTED[role].publish));
    expect(sorted(g.subscribe)).toEqual(sorted(EXPECTED[role].subscribe));
    expect(sorted(g.deadLetter)).toEqual(sorted(EXPECTED[role].subscribe.map(dlqTopicOf)));
  });

  describe('evidence role', () => {
    it('only subscribes to evidence.requested and its catalogue, and only publishes batches and catalogue requests', () => {
      const g = grantOf('evidence');
      expect(sorted(g.subscribe)).toEqual(['aoc.evidence.catalog-listed.v1', 'aoc.evidence.requested.v1']);
      expect(sorted(g.publish)).toEqual(['aoc.evidence.batch-planned.v1', 'aoc.evidence.catalog-requested.v1']);
      expect(sorted(g.deadLetter)).toEqual(['aoc.evidence.catalog-listed.v1.dlq', 'aoc.evidence.requested.v1.dlq']);
    });

    it('is granted nothing on diagnosis-side topics (scenario, diagnosis, run), in process or on the broker', () => {
      const diagnosisTopics = TOPIC_REGISTRY.map((t) => t.name).filter((n) => DIAGNOSIS_SIDE.test(n));
      expect(diagnosisTopics.length).toBeGreaterThanOrEqual(4);
      const granted = everything('evidence');
      expect(granted.filter((n) => DIAGNOSIS_SIDE.test(n))).toEqual([]);
      for (const t of diagnosisTopics) {
        expect(granted).not.toContain(t);
        expect(granted).not.toContain(dlqTopicOf(t));
      }
    });

    it('has broker READ only on its two inputs and WRITE only on its two outputs and its own DLQs', () => {
      const p = brokerAclMatrix().principals.find((x) => x.role === 'evidence');
      expect(sorted(p?.read ?? [])).toEqual(['aoc.evidence.catalog-listed.v1', 'aoc.evidence.requested.v1']);
      expect(sorted(p?.write ?? [])).toEqual(['aoc.evidence.batch-planned.v1', 'aoc.evidence.catalog-listed.v1.dlq', 'aoc.evidence.catalog-requested.v1', 'aoc.evidence.requested.v1.dlq']);
    });
  });

  describe('judge role', () => {
    it('is not granted run.execution-recorded (nor its DLQ), in process or on the broker', () => {
      const granted = everything('judge');
      expect(granted).not.toContain(Topics.runExecutionRecorded.name);
      expect(granted).not.toContain(dlqTopicOf(Topics.runExecutionRecorded.name));
      expect(granted.filter((n) => n.startsWith('aoc.run.execution-recorded'))).toEqual([]);
    });

    it('sees no execution or diagnosis state: only the frozen ticket, run.published and the ticket timeline', () => {
      expect(sorted(grantOf('judge').subscribe)).toEqual(sorted([Topics.ticketAnalysisRequested.name, Topics.runPublished.name, Topics.ticketTimelineUpdated.name]));
    });
  });

  it('lets only consumers of a topic write its DLQ, and nobody read a DLQ', () => {
    for (const t of TOPIC_REGISTRY) {
      const writers = roleGrants()
        .filter((g) => g.deadLetter.includes(dlqTopicOf(t.name)))
        .map((g) => g.role);
      expect(sorted(writers)).toEqual(sorted(t.consumers));
    }
    for (const g of roleGrants()) expect(g.subscribe.filter((n) => n.endsWith('.dlq'))).toEqual([]);
  });
});

describe('brokerAclMatrix()', () => {
  const matrix = brokerAclMatrix();

  it('declares every topic and its DLQ once', () => {
    const expected = TOPIC_REGISTRY.flatMap((t) => [
      { name: t.name, partitions: t.partitions, kind: 'event' },
      { name: dlqTopicOf(t.name), partitions: 1, kind: 'dlq' },
    ]);
    expect(matrix.topics).toEqual(expected);
    expect(new Set(matrix.topics.map((t) => t.name)).size).toBe(matrix.topics.length);
  });

  it('has one principal per role with its username, group prefix and grants', () => {
    expect(matrix.brokerPrincipalPrefix).toBe('User:');
    expect(matrix.principals.map((p) => p.role)).toEqual([...ROLES]);
    for (const p of matrix.principals) {
      const role = p.role as Role;
      const g = grantOf(role);
      expect(p.username).toBe(principalName(role));
      expect(p.username).toBe(`aoc-${role}`);
      expect(p.consumerGroupPrefix).toBe(consumerGroupPrefix(role));
      expect(p.consumerGroupPrefix).toBe(`aoc.${role}`);
      expect(sorted(p.read)).toEqual(sorted(g.subscribe));
      expect(sorted(p.write)).toEqual(sorted([...g.publish, ...g.deadLetter]));
    }
  });

  it('only grants declared topics', () => {
    const declared = new Set(matrix.topics.map((t) => t.name));
    for (const p of matrix.principals) {
      for (const t of [...p.read, ...p.write]) expect(declared.has(t)).toBe(true);
    }
  });

  it('gives unique usernames, distinct from the admin, and group prefixes that do not cover each other', () => {
    const usernames = [matrix.admin.username, ...matrix.principals.map((p) => p.username)];
    expect(new Set(usernames).size).toBe(usernames.length);
    // Groups are granted as PREFIXED ACLs: one role's prefix must not be a prefix of another's.
    const prefixes = matrix.principals.map((p) => p.consumerGroupPrefix);
    for (const a of prefixes) {
      for (const b of prefixes) if (a !== b) expect(b.startsWith(a)).toBe(false);
    }
  });
});
