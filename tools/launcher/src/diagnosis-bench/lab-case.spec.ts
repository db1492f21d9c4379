import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { caseStartMs, loadLabCases, parseLabCase, readLabCase, stretchValue, toCaseMs, type Stretch } from './lab-case';
import { sampleCase } from './lab-fixture';
import { loadVocabulary } from './lab';

const messages = (raw: unknown): string => {
  try {
    parseLabCase(raw, 'pg-deadlocks-09.json.gz');
    return '';
  } catch (error) {
    return (error as Error).message;
  }
};

describe('lab case loader', () => {
  it('accepts a valid case', () => {
    expect(parseLabCase(sampleCase(), '/x/pg-deadlocks-09.json.gz').id).toBe('pg-deadlocks-09');
  });

  it('names the bad field', () => {
    const c = sampleCase();
    expect(messages({ ...c, truth: { ...c.truth, mode: 'cpu-hog' } })).toMatch(/truth\.mode:/);
    expect(messages({ ...c, series: [{ ...c.series[0], v: [1, 1] }] })).toMatch(/series\.0\.v: 2 values for 3 times/);
    expect(messages({ ...c, series: [{ ...c.series[0], labels: { instance: 'x' } }] })).toMatch(/series\.0\.labels\.cluster/);
    expect(messages({ ...c, variant: { ...c.variant, onset: 'sometime' } })).toMatch(/variant\.onset/);
    expect(messages({ ...c, ticket: { ...c.ticket, ticket: { ...c.ticket.ticket, title: 'Requests failing', description: 'slow since 09:25' } } })).toMatch(/ticket\.ticket\.description: the ticket names the cluster/);
    expect(messages({ ...c, truth: { ...c.truth, state: 'recovered' } })).toMatch(/truth\.faultEnd: a recovered case says when the fault ended/);
    expect(messages({ ...c, extra: 1 })).toMatch(/\(root\)|extra/);
  });

  it('wants the id to be the file name', () => {
    expect(() => parseLabCase(sampleCase(), '/x/other.json.gz')).toThrow(/must equal the file name/);
  });

  it('reads gzipped files and refuses duplicate clusters', () => {
    const dir = mkdtempSync(join(tmpdir(), 'lab-cases-'));
    writeFileSync(join(dir, 'pg-deadlocks-09.json.gz'), gzipSync(JSON.stringify(sampleCase())));
    expect(readLabCase(join(dir, 'pg-deadlocks-09.json.gz')).cluster).toBe('lab-pg-09');
    writeFileSync(join(dir, 'pg-deadlocks-10.json.gz'), gzipSync(JSON.stringify(sampleCase({ id: 'pg-deadlocks-10' }))));
    expect(() => loadLabCases(dir)).toThrow(/cluster:lab-pg-09 is already used/);
    writeFileSync(join(dir, 'pg-deadlocks-10.json.gz'), 'not gzip');
    expect(() => loadLabCases(dir)).toThrow(/not gzipped JSON/);
  });
});

describe('time stretch', () => {
  const s: Stretch = { realStartMs: 1_000_000, realEndMs: 1_110_000, scale: 40, caseEndMs: 10_000_000_000 };

  it('maps the real interval onto scale times as long, ending at the case end', () => {
    expect(toCaseMs(s, s.realEndMs)).toBe(s.caseEndMs);
    expect(caseStartMs(s)).toBe(s.caseEndMs - 110_000 * 40);
    expect(toCaseMs(s, s.realStartMs + 1000) - toCaseMs(s, s.realStartMs)).toBe(40_000);
  });

  it('keeps per-second rates of counters and the values of gauges', () => {
    // A counter growing 5/s in real time, sampled 1 s apart: over the stretched 40 s it still grows 5/s.
    const rate = (stretchValue(s, 'counter', 105) - stretchValue(s, 'counter', 100)) / ((toCaseMs(s, 2000) - toCaseMs(s, 1000)) / 1000);
    expect(rate).toBe(5);
    expect(stretchValue(s, 'gauge', 42)).toBe(42);
    expect(stretchValue(s, 'age', 3)).toBe(120);
    expect(stretchValue(s, 'timestamp', s.realEndMs / 1000)).toBe(s.caseEndMs / 1000);
    expect(stretchValue(s, 'timestamp', 0)).toBe(0);
  });
});

describe('committed lab cases', () => {
  const cases = loadLabCases();
  const vocabulary = loadVocabulary();
  // Words that name a cause, per mode, beyond the catalogue's vocabulary.
  const CAUSE_WORDS: Record<string, string[]> = {
    'connection-exhaustion': ['connection limit', 'too many', 'exhaust', 'pool'],
    'lock-contention': ['lock', 'blocked'],
    deadlocks: ['deadlock'],
    'storage-full-data': ['disk', 'space', 'storage', 'full'],
    'storage-full-temp': ['disk', 'space', 'temp', 'full', 'sort'],
    'replication-lag-replica-capacity': ['replica', 'replication', 'lag'],
    'replication-lag-replica-query': ['replica', 'replication', 'lag'],
    'checkpoint-storm': ['checkpoint', 'wal'],
    failover: ['failover', 'promot'],
    restart: ['restart', 'reboot'],
    'batch-job': ['batch'],
    hotspot: ['hot row', 'hotspot', 'contention'],
    'plan-regression': ['index', 'plan', 'scan'],
    'cpu-statement': ['cpu'],
    'cpu-load': ['cpu'],
    healthy: ['healthy', 'false alarm'],
  };

  it('are there to replay', () => {
    expect(cases.length).toBeGreaterThan(0);
  });

  it.each(cases.map((c) => [c.id, c] as const))('%s: its ticket describes the symptom, never the mode', (_id, c) => {
    const t = c.ticket.ticket;
    const text = `${t.title}\n${t.description}`.toLowerCase();
    const words = [c.mode, c.mode.replace(/-/g, ' '), ...(CAUSE_WORDS[c.mode] ?? []), ...(vocabulary?.get(c.mode) ?? [])];
    for (const w of words) expect({ word: w, named: text.includes(w.toLowerCase()) }).toEqual({ word: w, named: false });
  });
});
