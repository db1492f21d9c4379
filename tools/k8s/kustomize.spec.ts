// The kustomize subset of tools/k8s/kustomize.ts: each behaviour on a small kustomization (the
// expected results are what `kubectl kustomize`, kustomize v5.5.0, printed for the same input),
// the refusals, and, where kubectl is installed, the same output as `kubectl kustomize` for every
// kustomization of deploy/k8s and for the fixtures here.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { renderKustomization, splitImage, toYaml, type K8sObject } from './kustomize';
import { mergeKeyOf, strategicMerge } from './strategic-merge';
import { parseYamlDocuments, type JsonObject } from './yaml-documents';

const ROOT = path.resolve(__dirname, '..', '..');
const K8S = path.join(ROOT, 'deploy', 'k8s');

let scratch: string;
beforeAll(() => {
  scratch = mkdtempSync(path.join(tmpdir(), 'aoc-kustomize-'));
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

let fixtures = 0;
/** Writes files (path → text) into a fresh folder and returns it. */
function fixture(files: Record<string, string>): string {
  const dir = path.join(scratch, `f${++fixtures}`);
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), text);
  }
  return dir;
}
const fixtureDirs: string[] = [];

const kustomization = (fields: string) => `apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n${fields}`;
const find = (objects: K8sObject[], kind: string, name: string) => objects.find((o) => o.kind === kind && o.metadata.name === name) as K8sObject & { spec: JsonObject; data?: Record<string, string> };

const DEPLOYMENT = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: d
  annotations: { keep: "1", drop: "2" }
spec:
  selector: { matchLabels: { app: d } }
  template:
    metadata: { labels: { app: d } }
    spec:
      volumes: [{ name: a, emptyDir: {} }, { name: b, emptyDir: {} }]
      containers:
        - name: c
          image: aoc-router@sha256:abc
          env: [{ name: A, value: "1" }, { name: B, value: "2" }, { name: C, value: "3" }]
          ports: [{ containerPort: 80, name: http }, { containerPort: 81, name: m }]
          args: [one, two]
        - name: d
          image: other:1
`;
const CUSTOM = `apiVersion: keda.sh/v1alpha1
kind: ScaledObject
metadata: { name: s }
spec:
  scaleTargetRef: { name: d }
  triggers: [{ type: kafka, metadata: { a: b } }, { type: kafka, metadata: { c: d } }]
`;
const JOB = `apiVersion: batch/v1
kind: Job
metadata: { name: j }
spec:
  template:
    spec:
      restartPolicy: Never
      containers: [{ name: m, image: "aoc-router:old" }]
`;

describe('a base and an overlay', () => {
  let objects: K8sObject[];
  beforeAll(() => {
    const dir = fixture({
      'base/kustomization.yaml': kustomization('resources:\n  - all.yaml\nconfigMapGenerator:\n  - name: gen\n    files:\n      - script/s.js\n    literals:\n      - K=v=1\ngeneratorOptions:\n  disableNameSuffixHash: true\n  labels: { generated: "yes-really" }\n'),
      'base/all.yaml': [DEPLOYMENT, CUSTOM, JOB, 'apiVersion: v1\nkind: ConfigMap\nmetadata: { name: cm }\ndata: { A: "1", B: "2" }\n'].join('---\n'),
      'base/script/s.js': 'console.log(1)\n',
      'overlay/kustomization.yaml': kustomization(
        'namespace: ns\nresources:\n  - ../base\n  - namespace.yaml\nlabels:\n  - pairs: { env: dev }\n    includeSelectors: false\n    includeTemplates: true\nimages:\n  - { name: aoc-router, newName: reg.example/aoc-router, newTag: "1.2" }\n  - { name: other, newName: reg.example/other }\npatches:\n  - path: patch.yaml\n  - patch: |\n      apiVersion: v1\n      kind: ConfigMap\n      metadata: { name: cm }\n      data: { B: "3", C: "" }\n',
      ),
      'overlay/namespace.yaml': 'apiVersion: v1\nkind: Namespace\nmetadata: { name: ns }\n',
      'overlay/patch.yaml': `apiVersion: apps/v1
kind: Deployment
metadata: { name: d, annotations: { drop: null } }
spec:
  replicas: 2
  template:
    spec:
      volumes: [{ name: b, emptyDir: { medium: Memory } }]
      containers:
        - name: d
          image: other:2
        - name: c
          env: [{ name: B, value: "9" }]
          ports: [{ containerPort: 81, name: metrics }]
          args: [z]
        - name: e
          image: new:1
---
apiVersion: keda.sh/v1alpha1
kind: ScaledObject
metadata: { name: s }
spec:
  maxReplicaCount: 5
  triggers: [{ type: kafka, metadata: { e: f } }]
`,
    });
    fixtureDirs.push(path.join(dir, 'base'), path.join(dir, 'overlay'));
    objects = renderKustomization(path.join(dir, 'overlay'));
  });

  test('kustomize order: Namespace, ConfigMaps by name, Deployment, then other kinds by group', () => {
    expect(objects.map((o) => `${o.kind}/${o.metadata.name}`)).toEqual(['Namespace/ns', 'ConfigMap/cm', 'ConfigMap/gen', 'Deployment/d', 'Job/j', 'ScaledObject/s']);
  });

  test('namespace on every namespaced object, custom resources included; the Namespace keeps its name', () => {
    expect(objects.filter((o) => o.kind !== 'Namespace').every((o) => o.metadata.namespace === 'ns')).toBe(true);
    expect(find(objects, 'Namespace', 'ns').metadata.namespace).toBeUndefined();
  });

  test('labels on every object and on pod templates, never on selectors', () => {
    for (const o of objects) expect(o.metadata.labels?.['env']).toBe('dev');
    const d = find(objects, 'Deployment', 'd');
    expect(d.spec['selector']).toEqual({ matchLabels: { app: 'd' } });
    expect((d.spec['template'] as { metadata: JsonObject }).metadata['labels']).toEqual({ app: 'd', env: 'dev' });
    expect((find(objects, 'Job', 'j').spec['template'] as { metadata: JsonObject }).metadata).toEqual({ labels: { env: 'dev' } });
  });

  test('strategic merge on a built-in kind: keyed lists merge (patch items first), other lists are replaced, null deletes', () => {
    const d = find(objects, 'Deployment', 'd');
    expect(d.metadata.annotations).toEqual({ keep: '1' });
    expect(d.spec['replicas']).toBe(2);
    const pod = (d.spec['template'] as { spec: { containers: JsonObject[]; volumes: JsonObject[] } }).spec;
    expect(pod.containers.map((c) => c['name'])).toEqual(['d', 'c', 'e']);
    const c = pod.containers[1];
    expect(c['env']).toEqual([
      { name: 'B', value: '9' },
      { name: 'A', value: '1' },
      { name: 'C', value: '3' },
    ]);
    expect(c['ports']).toEqual([
      { containerPort: 81, name: 'metrics' },
      { containerPort: 80, name: 'http' },
    ]);
    expect(c['args']).toEqual(['z']);
    expect(pod.volumes).toEqual([
      { name: 'b', emptyDir: { medium: 'Memory' } },
      { name: 'a', emptyDir: {} },
    ]);
  });

  test('strategic merge on a custom resource replaces lists', () => {
    expect(find(objects, 'ScaledObject', 's').spec).toEqual({ maxReplicaCount: 5, scaleTargetRef: { name: 'd' }, triggers: [{ type: 'kafka', metadata: { e: 'f' } }] });
  });

  test('an inline patch merges ConfigMap data', () => {
    expect(find(objects, 'ConfigMap', 'cm').data).toEqual({ A: '1', B: '3', C: '' });
  });

  test('images: a new tag replaces a digest, a new name alone keeps the tag; Jobs too', () => {
    const pod = (find(objects, 'Deployment', 'd').spec['template'] as { spec: { containers: JsonObject[] } }).spec;
    expect(pod.containers.map((c) => c['image'])).toEqual(['reg.example/other:2', 'reg.example/aoc-router:1.2', 'new:1']);
    const job = (find(objects, 'Job', 'j').spec['template'] as { spec: { containers: JsonObject[] } }).spec;
    expect(job.containers[0]['image']).toBe('reg.example/aoc-router:1.2');
  });

  test('configMapGenerator: file content under its base name, literals, generator labels, no hash suffix', () => {
    const gen = find(objects, 'ConfigMap', 'gen');
    expect(gen.data).toEqual({ 's.js': 'console.log(1)\n', K: 'v=1' });
    expect(gen.metadata.labels).toEqual({ generated: 'yes-really', env: 'dev' });
  });

  test('the YAML output reads back as the same objects', () => {
    const back = parseAllDocuments(toYaml(objects)).map((d) => d.toJS() as K8sObject);
    expect(back).toEqual(objects);
  });
});

describe('refusals', () => {
  const render = (files: Record<string, string>) => () => renderKustomization(fixture(files));
  const base = { 'cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata: { name: cm }\n' };

  test.each([
    ['a field it does not implement', 'commonLabels: { a: b }\n', /commonLabels is not supported/],
    ['namePrefix', 'namePrefix: x-\n', /namePrefix is not supported/],
    ['labels on selectors', 'labels:\n  - pairs: { a: b }\n    includeSelectors: true\n', /includeSelectors: true is not supported/],
    ['a patch target', 'patches:\n  - path: cm.yaml\n    target: { kind: ConfigMap }\n', /field target is not supported/],
    ['a remote resource', 'resources:\n  - https://example.com/x.yaml\n', /remote/],
    ['a file outside the folder', 'resources:\n  - ../elsewhere.yaml\n', /outside/],
    ['a generator with a hash suffix', 'configMapGenerator:\n  - name: g\n    literals: [A=1]\n', /disableNameSuffixHash/],
    ['a patch of nothing', 'resources: [cm.yaml]\npatches:\n  - patch: "apiVersion: v1\\nkind: ConfigMap\\nmetadata: { name: other }\\n"\n', /no resources match ConfigMap other/],
    ['a JSON 6902 patch', 'resources: [cm.yaml]\npatches:\n  - patch: "- op: add\\n  path: /data\\n  value: {}\\n"\n', /JSON 6902 patches are not supported/],
    ['a patch directive', 'resources: [cm.yaml]\npatches:\n  - patch: "apiVersion: v1\\nkind: ConfigMap\\nmetadata: { name: cm }\\n$patch: delete\\n"\n', /directive \$patch/],
    ['the same object twice', 'resources: [cm.yaml, cm.yaml]\n', /defined twice/],
  ])('%s', (_what, fields, message) => {
    expect(render({ 'kustomization.yaml': kustomization(fields), ...base })).toThrow(message);
  });

  test('a scalar that YAML 1.1 and 1.2 read differently', () => {
    expect(() => parseYamlDocuments('a: 0444\n', 'x')).toThrow(/reads differently/);
    expect(() => parseYamlDocuments('a: on\n', 'x')).toThrow(/reads differently/);
    expect(parseYamlDocuments('a: "on"\nb: 292\n---\n', 'x')).toEqual([{ a: 'on', b: 292 }]);
  });
});

describe('strategic merge keys', () => {
  test.each([
    ['Deployment', 'spec.template.spec.containers', 'name'],
    ['Deployment', 'spec.template.spec.containers.env', 'name'],
    ['Deployment', 'spec.template.spec.containers.ports', 'containerPort'],
    ['Deployment', 'spec.template.spec.containers.volumeMounts', 'mountPath'],
    ['Deployment', 'spec.template.spec.volumes', 'name'],
    ['Deployment', 'spec.template.spec.topologySpreadConstraints', 'topologyKey'],
    ['Service', 'spec.ports', 'port'],
    ['Deployment', 'spec.template.spec.containers.envFrom', undefined],
    ['Deployment', 'spec.template.spec.tolerations', undefined],
    ['NetworkPolicy', 'spec.egress', undefined],
  ])('%s %s: %s', (kind, field, key) => {
    expect(mergeKeyOf(kind, field.split('.'))).toBe(key);
  });

  test('the target and the patch are left unchanged', () => {
    const target = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' }, data: { x: '1' } };
    const patch = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' }, data: { x: null, y: '2' } };
    expect(strategicMerge(target, patch)).toEqual({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' }, data: { y: '2' } });
    expect(target.data).toEqual({ x: '1' });
  });
});

test.each([
  ['aoc-router', { name: 'aoc-router' }],
  ['aoc-router:1.2', { name: 'aoc-router', tag: '1.2' }],
  ['reg.example:5000/aoc/aoc-router', { name: 'reg.example:5000/aoc/aoc-router' }],
  ['reg.example:5000/aoc-router:1@sha256:ab', { name: 'reg.example:5000/aoc-router', tag: '1', digest: 'sha256:ab' }],
])('image %s', (image, parts) => {
  expect(splitImage(image)).toEqual(parts);
});

// ---------------------------------------------------------------------------------------------
// The same output as kubectl kustomize (kustomize v5), where kubectl is installed
// ---------------------------------------------------------------------------------------------

function kustomizationsUnder(dir: string): string[] {
  const here = readdirSync(dir).includes('kustomization.yaml') ? [dir] : [];
  return [...here, ...readdirSync(dir).flatMap((e) => (statSync(path.join(dir, e)).isDirectory() ? kustomizationsUnder(path.join(dir, e)) : []))];
}

const kubectl = spawnSync('kubectl', ['kustomize', '--help'], { encoding: 'utf8', timeout: 30_000 }).status === 0;
const deployKustomizations = kustomizationsUnder(K8S);

test('deploy/k8s has a base and the dev and production overlays', () => {
  expect(deployKustomizations.map((d) => path.relative(K8S, d)).sort()).toEqual(['base', 'overlays/dev', 'overlays/production']);
});

(kubectl ? describe : describe.skip)('the same objects, in the same order, as kubectl kustomize', () => {
  const viaKubectl = (dir: string): K8sObject[] =>
    parseAllDocuments(execFileSync('kubectl', ['kustomize', dir], { encoding: 'utf8', timeout: 60_000 })).map((d) => d.toJS() as K8sObject);

  test.each(deployKustomizations.map((d) => [path.relative(ROOT, d)]))('%s', (dir) => {
    expect(renderKustomization(path.join(ROOT, dir))).toEqual(viaKubectl(path.join(ROOT, dir)));
  }, 60_000);

  test('the fixtures above', () => {
    expect(fixtureDirs.length).toBeGreaterThan(0);
    for (const dir of fixtureDirs) expect(renderKustomization(dir)).toEqual(viaKubectl(dir));
  }, 60_000);
});
