import { randomBytes } from 'node:crypto';
import { ProviderError } from '../core/provider-error';
import { AddressSealer, componentOf, INSTANCE_REF_PATTERN, InstanceRefCodec } from './grafana-instance-ref';

const detailOf = (fn: () => unknown): string => {
  try {
    fn();
  } catch (e) {
    if (e instanceof ProviderError) return `${e.code} ${e.detail}`;
    throw e;
  }
  return 'opened';
};

describe('instance references', () => {
  const key = randomBytes(32);
  const codec = new InstanceRefCodec(key, 'manus');
  const selection = { target: 'vida', label: 'instance', address: '10.0.3.17:10080', component: 'tidb' as const };

  it('round-trip inside the package and show nothing of the address', () => {
    const ref = codec.seal(selection);
    expect(ref).toMatch(INSTANCE_REF_PATTERN);
    expect(ref).not.toContain('10.0.3.17');
    expect(codec.open(ref, 'vida', 'queries.a.instanceRef')).toEqual(selection);
  });

  it('reject another target, another key, another package and tampering, naming the field', () => {
    const ref = codec.seal(selection);
    expect(detailOf(() => codec.open(ref, 'monica', 'queries.a.instanceRef'))).toMatch(/INPUT_INVALID queries\.a\.instanceRef: .*another target/);
    expect(detailOf(() => new InstanceRefCodec(randomBytes(32), 'manus').open(ref, 'vida', 'f'))).toMatch(/f: .*failed authentication/);
    expect(detailOf(() => new InstanceRefCodec(key, 'wetech').open(ref, 'vida', 'f'))).toMatch(/f: not an instance reference issued by the wetech package/);
    const body = ref.slice(5);
    const flipped = `${ref.slice(0, 5)}${body.slice(0, 20)}${body[20] === 'A' ? 'B' : 'A'}${body.slice(21)}`;
    expect(detailOf(() => codec.open(flipped, 'vida', 'f'))).toMatch(/failed authentication|malformed/);
    expect(detailOf(() => codec.open('mir1.!!', 'vida', 'f'))).toMatch(/malformed/);
  });

  it('classifies components from job/component labels', () => {
    expect(componentOf({ job: 'tidb' })).toBe('tidb');
    expect(componentOf({ job: 'vida-tikv' })).toBe('tikv');
    expect(componentOf({ component: 'pd' })).toBe('pd');
    expect(componentOf({ job: 'tidb-cluster-tiflash' })).toBe('tiflash');
    expect(componentOf({ __name__: 'tidb_server_query_total' })).toBe('tidb');
    expect(componentOf({ job: 'node' })).toBeNull();
  });

  it('replaces every address label by one stable reference per call', () => {
    const sealer = new AddressSealer(codec, 'vida');
    const base = { points: 1, first: 1, last: 1, min: 1, max: 1, mean: 1, maxAt: null, baselineMedian: null, recentMedian: null, anomalyScore: null, direction: null, shiftAt: null };
    const a = sealer.protect({ ...base, labels: { job: 'tidb', instance: 'tidb-0.peer:10080', pod_ip: '10.1.1.1' } });
    const b = sealer.protect({ ...base, labels: { job: 'tidb', instance: 'tidb-0.peer:10080' } });
    expect(a.labels).toEqual({ job: 'tidb' });
    expect(a.instanceRefs?.['instance']).toBe(b.instanceRefs?.['instance']);
    expect(JSON.stringify(a)).not.toMatch(/tidb-0\.peer|10\.1\.1\.1/);
    expect(codec.open(a.instanceRefs?.['pod_ip'] ?? '', 'vida', 'f')).toMatchObject({ label: 'pod_ip', address: '10.1.1.1', component: 'tidb' });
  });
});
