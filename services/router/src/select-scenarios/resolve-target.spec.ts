import { resolveAgainstInventory, type ProviderInventory } from './resolve-target';
import { extractTargetMentions } from './target-mentions';

const prometheus: ProviderInventory = {
  provider: 'prometheus',
  targets: ['payments-prod', 'payments-staging', 'orders-prod', 'billing-db-1', 'tidb-prod-7f3a'].map((target) => ({ target, aliases: [] })),
};
const clinic: ProviderInventory = { provider: 'clinic', targets: [{ target: '1372813089209061633/10290127484201', aliases: ['checkout-prod'] }] };
const inventories = [prometheus, clinic];

describe('target mentions', () => {
  it('finds names after target words, in label forms, console links, host names and quotes', () => {
    const texts = extractTargetMentions(
      'db instance orders-prod is slow; instance="billing-db-1"; see https://console.aws.amazon.com/rds/home?region=us-east-1#database:id=payments-prod;is-cluster=false and orders-prod.c9akciq32.us-east-1.rds.amazonaws.com or `checkout-prod`',
    ).map((m) => `${m.form}:${m.text}`);
    expect(texts).toEqual(
      expect.arrayContaining(['keyword:orders-prod', 'keyword:billing-db-1', 'link:payments-prod', 'host:orders-prod.c9akciq32.us-east-1.rds.amazonaws.com', 'quoted:checkout-prod']),
    );
  });
});

describe('resolveAgainstInventory', () => {
  it.each([
    ['Connections maxed out on cluster payments-prod since 14:00', 'prometheus', 'payments-prod'],
    ['our db instance orders-prod keeps refusing connections', 'prometheus', 'orders-prod'],
    ['Alert: instance="billing-db-1" free storage low', 'prometheus', 'billing-db-1'],
    ['https://console.aws.amazon.com/rds/home?region=us-east-1#database:id=payments-prod;is-cluster=false is down', 'prometheus', 'payments-prod'],
    ['connecting to orders-prod.c9akciq32.us-east-1.rds.amazonaws.com times out', 'prometheus', 'orders-prod'],
    ['payments-prod is slow today', 'prometheus', 'payments-prod'],
    ['Cluster Payments-Prod is slow', 'prometheus', 'payments-prod'],
    ['cluster checkout-prod has a hot TiKV', 'clinic', '1372813089209061633/10290127484201'],
    ['Cluster ID: 10290127484201 is hot', 'clinic', '1372813089209061633/10290127484201'],
    ['Organization ID: 1372813089209061633\nCluster ID: 10290127484201', 'clinic', '1372813089209061633/10290127484201'],
  ])('%s → %s %s', (text, provider, target) => {
    expect(resolveAgainstInventory(text, inventories)).toMatchObject({ provider, target, problem: null });
  });

  describe('Manus and Wetech inventories', () => {
    const manus: ProviderInventory = { provider: 'manus', targets: [{ target: 'vida', aliases: [] }, { target: 'monica', aliases: [] }] };
    const wetech: ProviderInventory = {
      provider: 'wetech',
      targets: [
        { target: 'ap-southeast-1/shop-main', aliases: ['shop-main'] },
        { target: 'eu-central-1/shop-main', aliases: ['shop-main'] },
        { target: 'eu-central-1/ledger-7', aliases: ['ledger-7'] },
      ],
    };
    const all = [prometheus, manus, wetech];

    it('selects Manus for vida or monica', () => {
      expect(resolveAgainstInventory('cluster vida has slow writes since 09:00', all)).toMatchObject({ provider: 'manus', target: 'vida', problem: null });
      expect(resolveAgainstInventory('replication lag alert on cluster Monica', all)).toMatchObject({ provider: 'manus', target: 'monica' });
    });

    it('selects the Wetech region and canonical cluster; a same-named cluster in two regions needs the region', () => {
      expect(resolveAgainstInventory('cluster ledger-7 is slow', all)).toMatchObject({ provider: 'wetech', target: 'eu-central-1/ledger-7', problem: null });
      expect(resolveAgainstInventory('cluster shop-main in ap-southeast-1 times out', all)).toMatchObject({ provider: 'wetech', target: 'ap-southeast-1/shop-main', problem: null });
      const ambiguous = resolveAgainstInventory('cluster shop-main times out', all);
      expect(ambiguous).toMatchObject({ provider: 'none', target: null, candidates: ['ap-southeast-1/shop-main', 'eu-central-1/shop-main'] });
      expect(ambiguous.problem).toMatch(/several targets/);
    });

    it('a region that contradicts the named cluster leaves the target empty and asks', () => {
      const conflicting = resolveAgainstInventory('cluster ledger-7 in ap-southeast-1 is slow', all);
      expect(conflicting).toMatchObject({ provider: 'none', target: null, candidates: ['eu-central-1/ledger-7'] });
      expect(conflicting.problem).toMatch(/region ap-southeast-1.*served in eu-central-1/);
    });

    it('finds a scoped target by its cluster part where the inventory has no aliases (replayed evidence)', () => {
      const replayed: ProviderInventory = { provider: 'wetech', targets: [{ target: 'ap-saas01/wt-saas01-core', aliases: [] }, { target: 'ap-southeast-1/wt-prod-sg-01', aliases: [] }] };
      expect(resolveAgainstInventory('APID ticket: cluster wt-prod-sg-01 CPU is high', [replayed])).toMatchObject({ provider: 'wetech', target: 'ap-southeast-1/wt-prod-sg-01', problem: null });
      // A SaaS region name is a region too: naming it against a cluster served elsewhere asks.
      const conflicting = resolveAgainstInventory('cluster wt-prod-sg-01 in ap-saas01 is slow', [replayed]);
      expect(conflicting).toMatchObject({ provider: 'none', target: null });
      expect(conflicting.problem).toMatch(/region ap-saas01.*served in ap-southeast-1/);
    });
  });

  it('one target named twice (a host and a keyword) is still one target', () => {
    expect(resolveAgainstInventory('cluster orders-prod (orders-prod.abc.eu-west-1.rds.amazonaws.com) is slow', inventories)).toMatchObject({ target: 'orders-prod' });
  });

  it('several inventory targets ask which one, listing them', () => {
    const r = resolveAgainstInventory('cluster payments-prod and cluster orders-prod are both slow', inventories);
    expect(r).toMatchObject({ provider: 'none', target: null, candidates: ['payments-prod', 'orders-prod'] });
    expect(r.problem).toContain('several targets (payments-prod, orders-prod)');
  });

  it('a name no inventory holds says which names were tried', () => {
    const r = resolveAgainstInventory('cluster inventory-prod is slow', inventories);
    expect(r).toMatchObject({ provider: 'none', target: null, candidates: [] });
    expect(r.problem).toContain('inventory-prod');
    expect(r.tried).toContain('inventory-prod');
  });

  it('a cluster of another org is not served (the inventory holds this org only)', () => {
    expect(resolveAgainstInventory('Organization ID: 1372813089209069999\nCluster ID: 10290127488888', inventories)).toMatchObject({ target: null, provider: 'none' });
  });

  it('words that are no names never match, and a ticket without any name asks for one', () => {
    expect(resolveAgainstInventory('Database very slow today', inventories)).toMatchObject({ target: null, problem: 'the ticket names no cluster' });
  });

  it('a strong mention wins over a bare token naming another target', () => {
    expect(resolveAgainstInventory('cluster payments-prod is slow; payments-staging is fine', inventories)).toMatchObject({ target: 'payments-prod' });
  });

  it('without any inventory the name patterns decide, as before', () => {
    expect(resolveAgainstInventory('p99 latency doubled on cluster tidb-prod-7f3a', [])).toMatchObject({ provider: 'prometheus', target: 'tidb-prod-7f3a' });
    expect(resolveAgainstInventory('cluster payments-prod is slow', [])).toMatchObject({ target: null });
  });

  it('stays bounded on a huge ticket with thousands of names', () => {
    const text = Array.from({ length: 5000 }, (_, i) => `cluster c-${i}`).join(', ');
    const r = resolveAgainstInventory(text, inventories);
    expect(r.target).toBeNull();
    expect(r.tried.length).toBeLessThanOrEqual(10);
  });
});
