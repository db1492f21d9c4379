import { ROLES, Topics, grantOf, type Role } from '@aoc/contracts';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ALL_SERVICES } from './all-services';

const ROOT = join(__dirname, '..', '..', '..');
type TopicKey = keyof typeof Topics;

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return name.endsWith('.ts') && !/\.(spec|integration-spec)\.ts$/.test(name) ? [path] : [];
  });
}

/** Topic names a role's production code publishes (`….publish(Topics.x, …)`) and subscribes to (`@OnTopic(Topics.x)`). */
function used(role: Role): { publish: Set<string>; subscribe: Set<string> } {
  const text = sources(join(ROOT, 'services', role, 'src')).map((f) => readFileSync(f, 'utf8')).join('\n');
  const names = (re: RegExp) => new Set([...text.matchAll(re)].map((m) => Topics[m[1] as TopicKey].name));
  return { publish: names(/\.publish\(\s*Topics\.(\w+)/g), subscribe: names(/@OnTopic\(\s*Topics\.(\w+)/g) };
}

const sorted = (xs: Iterable<string>) => [...xs].sort();

/**
 * The broker ACLs are generated from the grants in libs/contracts: a grant the code does not use
 * is an open door, and a use without a grant fails at start. Each role's grants equal what its
 * code publishes and subscribes to, and its service definition declares exactly what it publishes.
 */
describe('grants equal use', () => {
  it.each(ROLES.map((r) => [r]))('%s: publishes and subscribes to exactly its grants', (role: Role) => {
    const grant = grantOf(role);
    const code = used(role);
    expect(sorted(code.publish)).toEqual(sorted(grant.publish));
    expect(sorted(code.subscribe)).toEqual(sorted(grant.subscribe));
    const definition = ALL_SERVICES.find((d) => d.role === role);
    expect(sorted((definition?.publishes ?? []).map((t) => t.name))).toEqual(sorted(grant.publish));
  });

  it('every topic has a producer in code', () => {
    const all = ROLES.map((r) => used(r));
    for (const topic of Object.values(Topics)) {
      expect({ topic: topic.name, produced: all.some((u) => u.publish.has(topic.name)) }).toEqual({ topic: topic.name, produced: true });
    }
  });
});
