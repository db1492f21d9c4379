import { kindOf, scrapeConfig } from './prometheus';

describe('how a recorded series is stretched', () => {
  const types = new Map([
    ['pg_stat_database_xact_commit', 'counter'],
    ['pg_stat_bgwriter_stats_reset_total', 'counter'],
    ['node_cpu_seconds_total', 'counter'],
    ['http_request_duration_seconds', 'histogram'],
    ['pg_stat_activity_count', 'gauge'],
  ]);

  it('by its kind: counter, gauge, elapsed time or Unix time', () => {
    expect(kindOf('pg_stat_database_xact_commit', types)).toBe('counter');
    expect(kindOf('node_cpu_seconds_total', types)).toBe('counter');
    expect(kindOf('http_request_duration_seconds_bucket', types)).toBe('counter');
    expect(kindOf('pg_stat_activity_count', types)).toBe('gauge');
    expect(kindOf('pg_replication_lag', types)).toBe('age');
    expect(kindOf('pg_postmaster_start_time_seconds', types)).toBe('timestamp');
    expect(kindOf('node_time_seconds', types)).toBe('timestamp');
    // postgres_exporter calls it a counter; it holds a Unix time.
    expect(kindOf('pg_stat_bgwriter_stats_reset_total', types)).toBe('timestamp');
    expect(kindOf('some_unknown_total', types)).toBe('counter');
  });
});

/** The parts of the generated Prometheus configuration the test reads. */
interface ScrapeConfig {
  global: { scrape_interval: string };
  scrape_configs: { job_name: string; static_configs: { labels: Record<string, string> }[]; metric_relabel_configs?: { regex: string; action: string }[] }[];
}

describe('scrape config per case', () => {
  it('labels each lane with its case cluster and keeps only that lane’s CPU and mounts', () => {
    const cfg = JSON.parse(scrapeConfig({ postgres: 'lab-pg-07', mariadb: 'lab-my-03' })) as ScrapeConfig;
    expect(cfg.global.scrape_interval).toBe('1s');
    const pg = cfg.scrape_configs.find((j) => j.job_name === 'postgres');
    expect(pg?.static_configs.map((s) => s.labels)).toEqual([
      { cluster: 'lab-pg-07', role: 'primary', instance: 'lab-pg-07-a' },
      { cluster: 'lab-pg-07', role: 'replica', instance: 'lab-pg-07-b' },
    ]);
    const node = cfg.scrape_configs.find((j) => j.job_name === 'node-mysql');
    expect(node?.static_configs[0].labels).toEqual({ cluster: 'lab-my-03', instance: 'lab-my-03-host', job: 'node' });
    expect(node?.metric_relabel_configs).toEqual([
      { source_labels: ['cpu'], regex: '|1', action: 'keep' },
      { source_labels: ['mountpoint'], regex: '.*/mnt/pg.*', action: 'drop' },
    ]);
    expect((JSON.parse(scrapeConfig({})) as ScrapeConfig).scrape_configs).toEqual([]);
  });
});
