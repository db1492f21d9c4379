/**
 * A small renderer for the subset of kustomize that deploy/k8s uses, so that CI renders the
 * overlays without a kustomize binary. It does what `kustomize build` (kustomize v5, also
 * `kubectl kustomize`) does for these fields, and refuses every other field rather than ignore it:
 *
 * - `resources`: YAML files inside the kustomization's folder (several documents each), and
 *   folders holding a kustomization (bases), rendered first;
 * - `configMapGenerator` with `files` (`key=path` or `path`, key = file name) and `literals`, and
 *   `generatorOptions` with `disableNameSuffixHash: true` (no hash suffix, so no name references to
 *   rewrite), `labels` and `annotations`;
 * - `patches` with `path` or inline `patch`, no `target`: strategic merge patches (one or several
 *   documents), each applied to the resource of the same apiVersion group, kind and name
 *   (strategic-merge.ts);
 * - `namespace`: set on every object but the cluster-scoped kinds of the Kubernetes API (kustomize
 *   has no schema for custom resources and treats them as namespaced, as here);
 * - `labels` with `includeSelectors: false`: `pairs` on every object's metadata.labels and, with
 *   `includeTemplates: true`, on the pod templates of workloads;
 * - `images`: `newName`, `newTag`, `digest` for containers and init containers of pods, pod
 *   templates and CronJob job templates whose image name matches `name`.
 *
 * Transformers run in kustomize's order: patches, namespace, labels, images. The output is in
 * kustomize's default ("legacy") order. tools/k8s/kustomize.spec.ts compares the result with
 * `kubectl kustomize` on every overlay when kubectl is installed.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { stringify } from 'yaml';
import { strategicMerge } from './strategic-merge';
import { isObject, readYamlDocuments, parseYamlDocuments, type Json, type JsonObject } from './yaml-documents';

export interface K8sObject extends JsonObject {
  apiVersion: string;
  kind: string;
  metadata: JsonObject & { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
}

const KUSTOMIZATION_FILES = ['kustomization.yaml', 'kustomization.yml', 'Kustomization'];
const SUPPORTED_FIELDS = new Set(['apiVersion', 'kind', 'resources', 'namespace', 'labels', 'images', 'patches', 'configMapGenerator', 'generatorOptions']);

/** Cluster-scoped kinds of the Kubernetes API: the namespace transformer leaves them alone. */
const CLUSTER_SCOPED = new Set([
  'Namespace',
  'Node',
  'PersistentVolume',
  'StorageClass',
  'VolumeAttachment',
  'CSIDriver',
  'CSINode',
  'CustomResourceDefinition',
  'APIService',
  'ClusterRole',
  'ClusterRoleBinding',
  'PriorityClass',
  'RuntimeClass',
  'IngressClass',
  'MutatingWebhookConfiguration',
  'ValidatingWebhookConfiguration',
  'ValidatingAdmissionPolicy',
  'ValidatingAdmissionPolicyBinding',
  'FlowSchema',
  'PriorityLevelConfiguration',
  'ComponentStatus',
  'CertificateSigningRequest',
]);

/** Kinds whose `spec.template` is a pod template (labels with includeTemplates). */
const TEMPLATED = new Set(['Deployment', 'ReplicaSet', 'DaemonSet', 'StatefulSet', 'Job', 'ReplicationController']);

const fail = (where: string, message: string): never => {
  throw new Error(`${where}: ${message}`);
};

const asString = (value: Json | undefined, where: string): string => (typeof value === 'string' ? value : fail(where, 'must be a string'));
const asList = (value: Json | undefined, where: string): Json[] => (value === undefined ? [] : Array.isArray(value) ? value : fail(where, 'must be a list'));
const asMap = (value: Json | undefined, where: string): JsonObject => (value === undefined ? {} : isObject(value) ? value : fail(where, 'must be a map'));
const stringMap = (value: Json | undefined, where: string): Record<string, string> =>
  Object.fromEntries(Object.entries(asMap(value, where)).map(([k, v]) => [k, typeof v === 'string' ? v : fail(`${where}.${k}`, 'must be a string')]));

function onlyKeys(map: JsonObject, allowed: readonly string[], where: string): void {
  for (const key of Object.keys(map)) if (!allowed.includes(key)) fail(where, `field ${key} is not supported by this renderer`);
}

function kustomizationFile(dir: string): string {
  const found = KUSTOMIZATION_FILES.map((f) => path.join(dir, f)).filter((f) => existsSync(f));
  if (found.length !== 1) fail(dir, found.length === 0 ? 'no kustomization.yaml' : 'more than one kustomization file');
  return found[0];
}

/** A path of the kustomization, which must stay inside its folder (kustomize's default load restriction). */
function inside(dir: string, relative: string, where: string): string {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(relative)) fail(where, `remote ${relative} is not supported`);
  const resolved = path.resolve(dir, relative);
  if (resolved !== dir && !resolved.startsWith(dir + path.sep)) fail(where, `${relative} is outside ${dir}`);
  return resolved;
}

function toObject(doc: Json, where: string): K8sObject {
  if (!isObject(doc)) fail(where, 'a document is not a map');
  const o = doc as JsonObject;
  const metadata = asMap(o['metadata'], `${where}: metadata`);
  if (typeof o['apiVersion'] !== 'string' || typeof o['kind'] !== 'string' || typeof metadata['name'] !== 'string') fail(where, 'every object needs apiVersion, kind and metadata.name');
  return o as K8sObject;
}

const groupOf = (apiVersion: string) => (apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '');
const idOf = (o: K8sObject) => `${groupOf(o.apiVersion) || 'core'}/${o.kind}/${o.metadata.namespace ?? '~'}/${o.metadata.name}`;

function generateConfigMaps(dir: string, k: JsonObject, file: string): K8sObject[] {
  const options = asMap(k['generatorOptions'], `${file}: generatorOptions`);
  onlyKeys(options, ['disableNameSuffixHash', 'labels', 'annotations'], `${file}: generatorOptions`);
  const generators = asList(k['configMapGenerator'], `${file}: configMapGenerator`);
  if (generators.length > 0 && options['disableNameSuffixHash'] !== true) fail(file, 'configMapGenerator needs generatorOptions.disableNameSuffixHash: true (name suffix hashes are not implemented)');
  return generators.map((g, i) => {
    const where = `${file}: configMapGenerator[${i}]`;
    const gen = asMap(g, where);
    onlyKeys(gen, ['name', 'files', 'literals'], where);
    const data: Record<string, string> = {};
    const put = (key: string, value: string) => {
      if (key in data) fail(where, `key ${key} given twice`);
      data[key] = value;
    };
    for (const entry of asList(gen['files'], `${where}.files`)) {
      const text = asString(entry, `${where}.files`);
      const eq = text.indexOf('=');
      const [key, rel] = eq >= 0 ? [text.slice(0, eq), text.slice(eq + 1)] : [path.basename(text), text];
      put(key, readFileSync(inside(dir, rel, where), 'utf8'));
    }
    for (const entry of asList(gen['literals'], `${where}.literals`)) {
      const text = asString(entry, `${where}.literals`);
      const eq = text.indexOf('=');
      if (eq <= 0) fail(where, `literal ${text} is not KEY=VALUE`);
      put(text.slice(0, eq), text.slice(eq + 1));
    }
    const metadata: K8sObject['metadata'] = { name: asString(gen['name'], `${where}.name`) };
    if (options['labels'] !== undefined) metadata.labels = stringMap(options['labels'], `${file}: generatorOptions.labels`);
    if (options['annotations'] !== undefined) metadata.annotations = stringMap(options['annotations'], `${file}: generatorOptions.annotations`);
    return { apiVersion: 'v1', kind: 'ConfigMap', metadata, data };
  });
}

function applyPatches(objects: K8sObject[], dir: string, k: JsonObject, file: string): K8sObject[] {
  let out = objects;
  for (const [i, p] of asList(k['patches'], `${file}: patches`).entries()) {
    const where = `${file}: patches[${i}]`;
    const entry = asMap(p, where);
    onlyKeys(entry, ['path', 'patch'], where);
    if ((entry['path'] === undefined) === (entry['patch'] === undefined)) fail(where, 'give exactly one of path and patch');
    const docs = entry['path'] !== undefined ? readYamlDocuments(inside(dir, asString(entry['path'], where), where)) : parseYamlDocuments(asString(entry['patch'], where), where);
    for (const doc of docs) {
      if (Array.isArray(doc)) fail(where, 'JSON 6902 patches are not supported');
      const patch = toObject(doc, where);
      const matches = out.filter(
        (o) =>
          o.kind === patch.kind &&
          groupOf(o.apiVersion) === groupOf(patch.apiVersion) &&
          o.metadata.name === patch.metadata.name &&
          (patch.metadata.namespace === undefined || o.metadata.namespace === patch.metadata.namespace),
      );
      if (matches.length !== 1) fail(where, `${matches.length === 0 ? 'no' : 'several'} resources match ${patch.kind} ${patch.metadata.name}`);
      out = out.map((o) => (o === matches[0] ? (strategicMerge(o, patch) as K8sObject) : o));
    }
  }
  return out;
}

function setNamespace(objects: K8sObject[], namespace: string): K8sObject[] {
  return objects.map((o) => (CLUSTER_SCOPED.has(o.kind) ? o : { ...o, metadata: { ...o.metadata, namespace } }));
}

function withLabels(node: JsonObject, pairs: Record<string, string>): JsonObject {
  const metadata = asMap(node['metadata'], 'metadata');
  return { ...node, metadata: { ...metadata, labels: { ...stringMap(metadata['labels'], 'metadata.labels'), ...pairs } } };
}

function addLabels(objects: K8sObject[], k: JsonObject, file: string): K8sObject[] {
  let out = objects;
  for (const [i, entry] of asList(k['labels'], `${file}: labels`).entries()) {
    const where = `${file}: labels[${i}]`;
    const spec = asMap(entry, where);
    onlyKeys(spec, ['pairs', 'includeSelectors', 'includeTemplates'], where);
    if (spec['includeSelectors'] === true) fail(where, 'includeSelectors: true is not supported (selectors are immutable: keep them out of labels)');
    const pairs = stringMap(spec['pairs'], `${where}.pairs`);
    const templates = spec['includeTemplates'] === true;
    out = out.map((o) => {
      let next = withLabels(o, pairs) as K8sObject;
      if (templates && TEMPLATED.has(o.kind)) {
        const s = asMap(next['spec'], `${o.kind} ${o.metadata.name}: spec`);
        next = { ...next, spec: { ...s, template: withLabels(asMap(s['template'], 'spec.template'), pairs) } };
      }
      if (templates && o.kind === 'CronJob') {
        const s = asMap(next['spec'], `${o.kind} ${o.metadata.name}: spec`);
        const jobTemplate = withLabels(asMap(s['jobTemplate'], 'spec.jobTemplate'), pairs);
        const jobSpec = asMap(jobTemplate['spec'], 'spec.jobTemplate.spec');
        next = { ...next, spec: { ...s, jobTemplate: { ...jobTemplate, spec: { ...jobSpec, template: withLabels(asMap(jobSpec['template'], 'spec.jobTemplate.spec.template'), pairs) } } } };
      }
      return next;
    });
  }
  return out;
}

/** `name[:tag][@digest]`, the tag being after the last `/` (a registry may have a port). */
export function splitImage(image: string): { name: string; tag?: string; digest?: string } {
  const at = image.indexOf('@');
  const digest = at >= 0 ? image.slice(at + 1) : undefined;
  const rest = at >= 0 ? image.slice(0, at) : image;
  const colon = rest.lastIndexOf(':');
  const hasTag = colon > rest.lastIndexOf('/');
  return { name: hasTag ? rest.slice(0, colon) : rest, tag: hasTag ? rest.slice(colon + 1) : undefined, digest };
}

function setImages(objects: K8sObject[], k: JsonObject, file: string): K8sObject[] {
  const rules = asList(k['images'], `${file}: images`).map((r, i) => {
    const rule = asMap(r, `${file}: images[${i}]`);
    onlyKeys(rule, ['name', 'newName', 'newTag', 'digest'], `${file}: images[${i}]`);
    return { name: asString(rule['name'], `${file}: images[${i}].name`), newName: rule['newName'] as string | undefined, newTag: rule['newTag'] as string | undefined, digest: rule['digest'] as string | undefined };
  });
  if (rules.length === 0) return objects;
  const retag = (image: string): string => {
    const parts = splitImage(image);
    const rule = rules.find((r) => r.name === parts.name);
    if (!rule) return image;
    const name = rule.newName ?? parts.name;
    if (rule.digest !== undefined) return `${name}@${rule.digest}`;
    if (rule.newTag !== undefined) return `${name}:${rule.newTag}`;
    return `${name}${parts.tag !== undefined ? `:${parts.tag}` : ''}${parts.digest !== undefined ? `@${parts.digest}` : ''}`;
  };
  const podSpec = (spec: JsonObject): JsonObject => {
    const out = { ...spec };
    for (const list of ['containers', 'initContainers']) {
      if (Array.isArray(out[list])) out[list] = (out[list] as Json[]).map((c) => (isObject(c) && typeof c['image'] === 'string' ? { ...c, image: retag(c['image']) } : c));
    }
    return out;
  };
  const at = (node: JsonObject, keys: string[], fn: (n: JsonObject) => JsonObject): JsonObject => {
    if (keys.length === 0) return fn(node);
    const child = node[keys[0]];
    return isObject(child) ? { ...node, [keys[0]]: at(child, keys.slice(1), fn) } : node;
  };
  return objects.map((o) => {
    let next: JsonObject = o;
    for (const route of [['spec'], ['spec', 'template', 'spec'], ['spec', 'jobTemplate', 'spec', 'template', 'spec']]) next = at(next, route, podSpec);
    return next as K8sObject;
  });
}

function build(dir: string, stack: readonly string[]): K8sObject[] {
  if (stack.includes(dir)) fail(dir, `kustomization cycle: ${[...stack, dir].join(' -> ')}`);
  const file = kustomizationFile(dir);
  const docs = readYamlDocuments(file);
  if (docs.length !== 1 || !isObject(docs[0])) fail(file, 'must hold one map');
  const k = docs[0] as JsonObject;
  for (const key of Object.keys(k)) if (!SUPPORTED_FIELDS.has(key)) fail(file, `field ${key} is not supported by this renderer`);
  if (k['kind'] !== undefined && k['kind'] !== 'Kustomization') fail(file, 'kind must be Kustomization');

  let objects: K8sObject[] = [];
  for (const entry of asList(k['resources'], `${file}: resources`)) {
    const rel = asString(entry, `${file}: resources`);
    const resolved = path.resolve(dir, rel);
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(rel)) fail(file, `remote resource ${rel} is not supported`);
    if (existsSync(resolved) && statSync(resolved).isDirectory()) objects.push(...build(resolved, [...stack, dir]));
    else objects.push(...readYamlDocuments(inside(dir, rel, file)).map((d) => toObject(d, resolved)));
  }
  objects.push(...generateConfigMaps(dir, k, file));
  const seen = new Set<string>();
  for (const o of objects) {
    if (seen.has(idOf(o))) fail(file, `${o.kind} ${o.metadata.name} is defined twice`);
    seen.add(idOf(o));
  }
  objects = applyPatches(objects, dir, k, file);
  if (k['namespace'] !== undefined) objects = setNamespace(objects, asString(k['namespace'], `${file}: namespace`));
  objects = addLabels(objects, k, file);
  objects = setImages(objects, k, file);
  return objects;
}

// kustomize's legacy order (api/resid/gvk.go): these kinds first, in this order, those last, and
// every other kind between them; then by group_version_kind, namespace and name.
const ORDER_FIRST = [
  'Namespace',
  'ResourceQuota',
  'StorageClass',
  'CustomResourceDefinition',
  'ServiceAccount',
  'PodSecurityPolicy',
  'Role',
  'ClusterRole',
  'RoleBinding',
  'ClusterRoleBinding',
  'ConfigMap',
  'Secret',
  'Endpoints',
  'Service',
  'LimitRange',
  'PriorityClass',
  'PersistentVolume',
  'PersistentVolumeClaim',
  'Deployment',
  'StatefulSet',
  'CronJob',
  'PodDisruptionBudget',
];
const ORDER_LAST = ['MutatingWebhookConfiguration', 'ValidatingWebhookConfiguration'];

function typeOrder(kind: string): number {
  const first = ORDER_FIRST.indexOf(kind);
  if (first >= 0) return first - ORDER_FIRST.length;
  const last = ORDER_LAST.indexOf(kind);
  return last >= 0 ? last + 1 : 0;
}

function gvkString(o: K8sObject): string {
  const slash = o.apiVersion.indexOf('/');
  const [group, version] = slash >= 0 ? [o.apiVersion.slice(0, slash), o.apiVersion.slice(slash + 1)] : ['', o.apiVersion];
  return `${group || '~G'}_${version || '~V'}_${o.kind}`;
}

export function legacyOrder(objects: readonly K8sObject[]): K8sObject[] {
  return [...objects].sort((a, b) => {
    const [ga, gb] = [gvkString(a), gvkString(b)];
    if (ga !== gb) {
      const [ta, tb] = [typeOrder(a.kind), typeOrder(b.kind)];
      if (ta !== tb) return ta - tb;
      return ga < gb ? -1 : 1;
    }
    const [ka, kb] = [`${a.metadata.namespace ?? ''}|${a.metadata.name}`, `${b.metadata.namespace ?? ''}|${b.metadata.name}`];
    return ka < kb ? -1 : ka > kb ? 1 : 0;
  });
}

/** `kustomize build <dir>`, for the fields above: the objects in kustomize's output order. */
export function renderKustomization(dir: string): K8sObject[] {
  return legacyOrder(build(path.resolve(dir), []));
}

/** The objects as one multi-document YAML stream. */
export function toYaml(objects: readonly K8sObject[]): string {
  return objects.map((o) => stringify(o, { lineWidth: 0, sortMapEntries: true })).join('---\n');
}
