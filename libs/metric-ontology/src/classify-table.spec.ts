import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { classifyMetric } from './classify';
import { sanitizeMetricName } from './sanitize';
import { DBSHERLOCK_COLUMNS, EXPORTER_NAMES } from './testing/metric-names';

describe('classifyMetric over exporter names', () => {
  it.each(EXPORTER_NAMES)('%s → %s (%s, %s)', (name, family, kind, aggregation) => {
    const c = classifyMetric(name);
    expect({ family: c.family, kind: c.kind, aggregation: c.aggregation }).toEqual({ family, kind, aggregation });
  });

  it('covers at least 120 names', () => {
    expect(EXPORTER_NAMES.length + DBSHERLOCK_COLUMNS.length).toBeGreaterThanOrEqual(120);
    expect(EXPORTER_NAMES.length).toBeGreaterThanOrEqual(120);
  });
});

describe('classifyMetric over the DBSherlock columns', () => {
  it.each(DBSHERLOCK_COLUMNS)('%s → %s (%s, %s)', (raw, family, kind, aggregation) => {
    const c = classifyMetric(sanitizeMetricName(raw));
    expect({ family: c.family, kind: c.kind, aggregation: c.aggregation }).toEqual({ family, kind, aggregation });
    expect(c.source).toBe('dbseer');
  });

  // File handles and inodes follow activity, not memory pressure: they stay unclassified on purpose.
  it('leaves only Epoch, dbmsPageSize and the kernel object tables without a family', () => {
    const unknown = DBSHERLOCK_COLUMNS.map(([raw]) => sanitizeMetricName(raw)).filter((n) => classifyMetric(n).family === 'unknown');
    expect(unknown).toEqual(['Epoch', 'osAllocatedFileHandlers', 'osAllocatedINodes', 'dbmsPageSize']);
    expect(DBSHERLOCK_COLUMNS).toHaveLength(94);
  });

  // The dataset lives beside the repository; where it is checked out, the embedded header must be its header.
  const caseFile = join(__dirname, '../../../../shared/datasets/dbsherlock-tpcc16/cases/single-cpu-saturation-01.csv');
  (existsSync(caseFile) ? it : it.skip)('matches the header of the dataset', () => {
    const header = readFileSync(caseFile, 'utf8').split('\n', 1)[0].trim().split(',');
    expect(header).toEqual(DBSHERLOCK_COLUMNS.map(([raw]) => raw));
  });
});
