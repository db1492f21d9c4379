import { rankForCatalog } from './catalog-rank';

describe('a bounded catalogue keeps what the ontology knows', () => {
  const mysql = Array.from({ length: 600 }, (_, i) => `mysql_global_variables_setting_${String(i).padStart(3, '0')}`);
  const commands = Array.from({ length: 150 }, (_, i) => `mysql_global_status_com_cmd_${String(i).padStart(3, '0')}`);
  const node = ['node_cpu_seconds_total', 'node_filesystem_avail_bytes', 'node_disk_reads_completed_total', 'node_memory_MemAvailable_bytes'];
  const all = [...commands, ...mysql, 'mysql_global_status_threads_running', ...node].map((name) => ({ name }));

  it('keeps every primary and exporter-known name when a thousand names share the first letters', () => {
    const kept = rankForCatalog(all, 400).map((m) => m.name);
    expect(kept).toHaveLength(400);
    for (const n of [...node, 'mysql_global_status_threads_running']) expect(kept).toContain(n);
    // One name of a settings prefix tells the planner the prefix is there; the rest wait.
    expect(kept.filter((n) => n.startsWith('mysql_global_variables_')).length).toBeLessThan(300);
    expect(kept).toContain('mysql_global_variables_setting_000');
  });

  it('keeps the listing as it is within the bound, and its order past it', () => {
    const few = all.slice(0, 10);
    expect(rankForCatalog(few, 400)).toEqual(few);
    const kept = rankForCatalog(all, 400).map((m) => m.name);
    expect([...kept].sort((a, b) => all.findIndex((x) => x.name === a) - all.findIndex((x) => x.name === b))).toEqual(kept);
  });
});
