import { TOPIC_REGISTRY } from '@aoc/contracts';
import { REPO_ROOT } from './paths';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ARCHITECTURE_FILE, topicTable, withTopicTable } from './architecture-topics';

describe('the architecture topic table', () => {
  it('lists every registered topic with its producers, consumers and the handler files of its consumers', () => {
    const table = topicTable(REPO_ROOT);
    for (const t of TOPIC_REGISTRY) expect(table).toContain(`| \`${t.name}\` | ${t.producers.join(', ')} |`);
    expect(table).toMatch(/`aoc\.run\.published\.v1` \| router \| judge, reporter, optimizer \| .*\(\.\.\/services\/reporter\/src\/reporter-bus\.controller\.ts\)/);
  });

  it('is what the committed docs/architecture.md holds (npm run contracts:generate rewrites it)', () => {
    expect(readFileSync(join(REPO_ROOT, ARCHITECTURE_FILE), 'utf8')).toBe(withTopicTable(REPO_ROOT));
  });
});
