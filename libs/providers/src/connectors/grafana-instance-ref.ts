import { z } from 'zod';
import { ProviderError } from '../core/provider-error';
import { openJson, sealJson, SealedBoxError } from '../core/sealed-box';
import { SeriesSummarySchema, type SeriesSummary } from './prometheus-connector';

/** Labels whose values are provider addresses; they leave a package only as sealed references. */
export const ADDRESS_LABELS: ReadonlySet<string> = new Set(['instance', 'address', 'addr', 'ip', 'host', 'hostname', 'host_ip', 'node_ip', 'pod_ip', 'server', 'endpoint', 'peer', 'target', 'exported_instance']);

export type InstanceComponent = 'tidb' | 'tikv' | 'pd' | 'tiflash' | 'ticdc';

/** What a reference selects: one address label value of one trusted target. */
export interface InstanceSelection {
  target: string;
  label: string;
  address: string;
  component: InstanceComponent | null;
}

export type InstanceRefScope = 'manus' | 'wetech';

const PREFIX: Record<InstanceRefScope, string> = { manus: 'mir1', wetech: 'wir1' };
export const INSTANCE_REF_PATTERN = /^(mir1|wir1)\.[A-Za-z0-9_-]{40,600}$/;
const MAX_LABELS = 16;
const MAX_LABEL_VALUE = 200;

const Payload = z.object({
  t: z.string().min(1).max(200),
  l: z.string().min(1).max(64),
  a: z.string().min(1).max(512),
  c: z.enum(['tidb', 'tikv', 'pd', 'tiflash', 'ticdc']).nullable(),
});

/** Classifies a series by the TiDB component it describes, from its job/component labels or metric name. */
export function componentOf(labels: Readonly<Record<string, string>>): InstanceComponent | null {
  const hints = [labels['component'], labels['app_kubernetes_io_component'], labels['job'], labels['__name__']].filter((v): v is string => typeof v === 'string').map((v) => v.toLowerCase());
  for (const hint of hints) {
    if (/tiflash/.test(hint)) return 'tiflash';
    if (/tikv/.test(hint)) return 'tikv';
    if (/ticdc|(^|[-_])cdc($|[-_])/.test(hint)) return 'ticdc';
    if (/(^|[-_])pd($|[-_])/.test(hint)) return 'pd';
    if (/tidb/.test(hint)) return 'tidb';
  }
  return null;
}

/**
 * Seals provider addresses into opaque references (AES-256-GCM under the package key, random IV)
 * and opens them again inside the package. A reference names its target, so it cannot select an
 * instance of another target even under the same key.
 */
export class InstanceRefCodec {
  private readonly purpose: string;

  constructor(
    private readonly key: Buffer,
    private readonly scope: InstanceRefScope,
  ) {
    this.purpose = `aoc:${scope}:instance-ref:v1`;
  }

  seal(selection: InstanceSelection): string {
    return `${PREFIX[this.scope]}.${sealJson(this.key, this.purpose, { t: selection.target, l: selection.label, a: selection.address, c: selection.component })}`;
  }

  /** Opens a reference for `target`; every failure is a clear input error naming `field`. */
  open(ref: string, target: string, field: string): InstanceSelection {
    const prefix = `${PREFIX[this.scope]}.`;
    if (!ref.startsWith(prefix)) throw new ProviderError('PROVIDER.INPUT_INVALID', `${field}: not an instance reference issued by the ${this.scope} package`);
    let payload: unknown;
    try {
      payload = openJson(this.key, this.purpose, ref.slice(prefix.length));
    } catch (error) {
      if (error instanceof SealedBoxError) {
        throw new ProviderError('PROVIDER.INPUT_INVALID', error.reason === 'unauthenticated' ? `${field}: instance reference failed authentication (altered, or issued under another key)` : `${field}: instance reference is malformed (${error.message})`);
      }
      throw error;
    }
    const parsed = Payload.safeParse(payload);
    if (!parsed.success) throw new ProviderError('PROVIDER.INPUT_INVALID', `${field}: instance reference content is not recognised`);
    if (parsed.data.t !== target) throw new ProviderError('PROVIDER.INPUT_INVALID', `${field}: instance reference belongs to another target`);
    return { target: parsed.data.t, label: parsed.data.l, address: parsed.data.a, component: parsed.data.c };
  }
}

/** A series summary whose address labels were replaced by sealed references. */
export const ProtectedSeriesSchema = SeriesSummarySchema.extend({
  instanceRefs: z.record(z.string(), z.string().regex(INSTANCE_REF_PATTERN)).optional(),
  labelsOmitted: z.number().int().optional(),
}).strict();
export type ProtectedSeries = z.infer<typeof ProtectedSeriesSchema>;

/** Seals addresses once per call, so one instance keeps one reference within a result. */
export class AddressSealer {
  private readonly memo = new Map<string, string>();

  constructor(
    private readonly codec: InstanceRefCodec,
    private readonly target: string,
  ) {}

  protect(series: SeriesSummary): ProtectedSeries {
    const component = componentOf(series.labels);
    const labels: Record<string, string> = {};
    const refs: Record<string, string> = {};
    let kept = 0;
    let omitted = 0;
    for (const name of Object.keys(series.labels).sort()) {
      const value = series.labels[name];
      if (ADDRESS_LABELS.has(name.toLowerCase())) {
        const memoKey = `${name}\u0000${value}`;
        let ref = this.memo.get(memoKey);
        if (!ref) {
          ref = this.codec.seal({ target: this.target, label: name, address: value, component });
          this.memo.set(memoKey, ref);
        }
        refs[name] = ref;
        continue;
      }
      if (kept >= MAX_LABELS) {
        omitted++;
        continue;
      }
      labels[name] = value.length > MAX_LABEL_VALUE ? `${value.slice(0, MAX_LABEL_VALUE)}…` : value;
      kept++;
    }
    const { labels: _raw, ...stats } = series;
    return { ...stats, labels, ...(Object.keys(refs).length > 0 ? { instanceRefs: refs } : {}), ...(omitted > 0 ? { labelsOmitted: omitted } : {}) };
  }
}
