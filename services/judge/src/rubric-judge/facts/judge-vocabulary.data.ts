/**
 * Versioned vocabulary of the built-in judge (data apart from the fact engine). Metric families
 * come from `@aoc/metric-ontology`; these are the remaining terms of the seed's domains (query
 * plans, TiDB internals, operations) and the phrases the comparison rules read.
 */
export const JUDGE_VOCABULARY_VERSION = 'judge-vocabulary-v2';

/** Technical terms beyond the metric families. A multi-word term does not hide its parts. */
export const TERMS: readonly string[] = [
  'full table scan', 'table scan', 'index scan', 'missing index', 'execution plan', 'query plan', 'slow query', 'hot region', 'region split',
  'write conflict', 'garbage collection', 'connection pool', 'report query', 'batch job', 'rate limit', 'scale out', 'scale up', 'leader transfer',
  'network partition', 'instance class', 'parameter group', 'read replica', 'long transaction', 'idle in transaction', 'autovacuum', 'vacuum',
  'index', 'hotspot', 'statistics', 'analyze', 'ddl', 'migration', 'changefeed', 'tikv', 'tidb', 'pd', 'tiflash', 'ticdc', 'leader', 'raft',
  'compaction', 'rocksdb', 'coprocessor', 'certificate', 'timeout', 'configuration', 'upgrade', 'rollback', 'pooler', 'pgbouncer', 'proxy',
  'binlog', 'wal', 'checkpoint', 'failover', 'restart', 'backup', 'restore', 'dump', 'throttle', 'quota', 'autoscaling', 'burst', 'credit',
];

/** Synonyms folded onto one spelling before matching (regex source, replacement). */
export const SYNONYMS: readonly [string, string][] = [
  ['\\bindexes\\b|\\bindices\\b', 'index'],
  ['\\bhot\\s*spots?\\b', 'hotspot'],
  ['\\bfull[- ]table[- ]scans?\\b|\\bseq(?:uential)?\\s+scans?\\b', 'full table scan'],
  ['\\bexplain plan\\b|\\bexecution plans?\\b', 'execution plan'],
  ['\\bgarbage[- ]collection\\b', 'garbage collection'],
  ['\\bscaled? out\\b|\\bhorizontal scaling\\b', 'scale out'],
  ['\\bscaled? up\\b|\\bbigger instance\\b|\\blarger instance\\b', 'scale up'],
  ['\\breplica lag\\b|\\breplication delay\\b|\\bseconds behind (?:the )?(?:master|source)\\b', 'replication lag'],
  ['\\bmax[_ ]connections\\b|\\bconnection limit\\b|\\bconnections? cap\\b', 'connection limit'],
  ['\\bdisk full\\b|\\bout of (?:disk )?space\\b|\\bno space left\\b|\\bfilled (?:up )?the (?:disk|volume)\\b|\\b(?:disk|volume) (?:is |was |got )?filled up\\b', 'storage full'],
  // Findings in plain words: the same finding stated without a metric name folds onto its term.
  ['\\b(?:opened|left|leaves|keeps?|kept) (?:a |the |its )?transaction open\\b|\\bnever (?:committed|commits|closed)\\b', 'idle in transaction'],
  ['\\b(?:can(?:\'t|not)|could(?:n\'t| not)|unable to) keep up with the (?:primary|source|master)\\b|\\b(?:falls?|fell|lags?|lagged|lagging) (?:further |far )?behind (?:the )?(?:primary|source|master)\\b', 'replication lag'],
  ['\\bran out of (?:free )?connections\\b|\\bno (?:free )?connection slots\\b|\\b(?:all|every) (?:the )?(?:free )?connection slots\\b', 'connection limit'],
  ['\\b(?:reads?|reading|scans?|scanning|goes through|going through) (?:the |every row of the )?(?:whole|entire|complete) (?:\\w+ )?table\\b|\\bevery row of the (?:\\w+ )?table\\b', 'full table scan'],
  ['\\bwait(?:s|ing)? (?:on|for) each other\\b|\\beach (?:waits?|waiting) for the (?:other|row the other)\\b', 'deadlock'],
];

/** Words that turn the next few words into a negated claim ("not a lock problem"). */
export const NEGATIONS = /\b(?:no|not|never|without|isn't|wasn't|aren't|weren't|ruled out|rules out|unrelated to|nothing to do with)\b/i;

/** Words that mark a number as approximate. */
export const APPROXIMATE = /(?:~|≈|\babout|\baround|\broughly|\bapprox(?:imately)?\.?|\bnearly|\balmost|\bclose to|\bsome)\s*$/i;

/** Relative tolerance of a quantity match; an approximate number allows more. */
export const TOLERANCE = { relative: 0.05, approximate: 0.15, percentPoints: 1, timeMinutes: 2 };

/** UTC offsets (minutes) of zone names a ticket commonly uses. Ambiguous ones (CST) are left out. */
export const ZONES: Readonly<Record<string, number>> = {
  utc: 0, z: 0, gmt: 0, bst: 60, cet: 60, cest: 120, eet: 120, eest: 180, est: -300, edt: -240, pst: -480, pdt: -420, mst: -420, mdt: -360,
  ist: 330, sgt: 480, hkt: 480, jst: 540, kst: 540, aest: 600, aedt: 660,
};

/**
 * Factors between units a fact engine does not convert across dimensions (a share as a percent
 * or a fraction, per minute vs per second, ms vs s, KiB vs bytes): the same subject at a value
 * apart by one of them is the same measurement in other units.
 */
export const OTHER_UNIT_FACTORS: readonly number[] = [1, 100, 60, 1000, 1024, 3600, 86400];
