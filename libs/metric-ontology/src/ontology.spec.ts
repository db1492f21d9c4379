import ontologyJson from '../data/ontology.json';
import { familyWords, isMetricFamilyId, METRIC_FAMILIES, metricFamily, ONTOLOGY, ONTOLOGY_VERSION } from './ontology';
import { METRIC_FAMILY_IDS, parseOntology } from './ontology-schema';

/** A fresh, mutable copy of the shipped data, to break one field at a time. */
const copy = (): { [key: string]: unknown; patterns: Record<string, unknown>[]; families: Record<string, unknown>[] } =>
  JSON.parse(JSON.stringify(ontologyJson));

describe('ontology data', () => {
  it('parses and is versioned', () => {
    expect(ONTOLOGY_VERSION).toBe('ontology-v3');
    expect(() => parseOntology(ontologyJson)).not.toThrow();
  });

  it('defines exactly the family ids of the TS union, each once', () => {
    expect([...ONTOLOGY.families.map((f) => f.id)].sort()).toEqual([...METRIC_FAMILY_IDS].sort());
    expect(METRIC_FAMILIES.map((f) => f.id)).toEqual([...METRIC_FAMILY_IDS]);
  });

  it('has unique pattern ids whose families exist', () => {
    const ids = ONTOLOGY.patterns.map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const p of ONTOLOGY.patterns) expect(isMetricFamilyId(p.family)).toBe(true);
  });

  it('gives every family but unknown at least one pattern and one word', () => {
    const withPatterns = new Set(ONTOLOGY.patterns.map((p) => p.family));
    const lacking = METRIC_FAMILIES.filter((f) => f.id !== 'unknown' && (!withPatterns.has(f.id) || f.words.length === 0)).map((f) => f.id);
    expect(lacking).toEqual([]);
    expect(familyWords('unknown')).toEqual([]);
  });

  it('bounds families only by families that exist', () => {
    for (const f of METRIC_FAMILIES) if (f.limitFamily) expect(isMetricFamilyId(f.limitFamily)).toBe(true);
    expect(metricFamily('connections').limitFamily).toBe('connection_limit');
    expect(metricFamily('storage_used').limitFamily).toBe('storage_capacity');
    expect(metricFamily('iops').limitFamily).toBe('iops_limit');
    expect(metricFamily('cpu').limitFamily).toBeNull();
  });

  it('keeps words lower case and unique within a family', () => {
    for (const f of METRIC_FAMILIES) {
      expect(f.words.every((w) => w === w.toLowerCase())).toBe(true);
      expect(new Set(f.words).size).toBe(f.words.length);
    }
  });

  it('puts the generic block last, so exporter patterns always win', () => {
    const sources = ONTOLOGY.patterns.map((p) => p.source);
    const firstGenericWord = ONTOLOGY.patterns.findIndex((p) => p.id.startsWith('generic_'));
    expect(firstGenericWord).toBeGreaterThan(0);
    expect(sources.slice(firstGenericWord).every((s) => s === 'generic')).toBe(true);
  });

  it('says which way is bad the way a customer would', () => {
    expect(metricFamily('storage_free').badDirection).toBe('down');
    expect(metricFamily('cache_hit').badDirection).toBe('down');
    expect(metricFamily('uptime').badDirection).toBe('down');
    expect(metricFamily('replication_lag')).toMatchObject({ badDirection: 'up', label: 'replica lag', unit: 'seconds' });
  });
});

describe('family lookups', () => {
  it('knows its ids and refuses others', () => {
    expect(isMetricFamilyId('cpu')).toBe(true);
    expect(isMetricFamilyId('gpu')).toBe(false);
    expect(() => metricFamily('gpu' as never)).toThrow(/unknown metric family "gpu"/);
    expect(familyWords('connections')).toContain('too many connections');
  });

  it('hands out frozen data', () => {
    expect(Object.isFrozen(METRIC_FAMILIES)).toBe(true);
    expect(Object.isFrozen(metricFamily('cpu').words)).toBe(true);
  });
});

describe('parseOntology on a bad file', () => {
  it('names the field and the pattern of a broken regex', () => {
    const data = copy();
    data.patterns[3].regex = 'node_(cpu';
    expect(() => parseOntology(data)).toThrow(/patterns\.3\.regex \(pattern "[a-z0-9_]+"\): not a valid regex/);
  });

  it('names a pattern family that does not exist', () => {
    const data = copy();
    data.patterns[0].family = 'gpu';
    expect(() => parseOntology(data)).toThrow(/patterns\.0\.family/);
  });

  it('names a bad limit family', () => {
    const data = copy();
    data.families[0].limitFamily = 'nowhere';
    expect(() => parseOntology(data)).toThrow(/families\.0\.limitFamily/);
  });

  it('names a missing family and a duplicate pattern id', () => {
    const data = copy();
    data.families = data.families.filter((f) => f.id !== 'wal');
    data.patterns[1].id = data.patterns[0].id;
    expect(() => parseOntology(data)).toThrow(/family "wal" is not defined.*duplicate pattern id|duplicate pattern id.*family "wal" is not defined/);
  });

  it('refuses unknown fields and a missing version', () => {
    const extra = copy();
    extra.patterns[0].flavour = 'x';
    expect(() => parseOntology(extra)).toThrow(/patterns\.0/);
    const unversioned = copy();
    delete unversioned.version;
    expect(() => parseOntology(unversioned)).toThrow(/version/);
  });
});
