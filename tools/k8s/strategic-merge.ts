/**
 * Strategic merge patches, for the fields deploy/k8s patches, the way kustomize (kyaml merge2)
 * applies them:
 * - maps merge key by key; a null value deletes the key;
 * - a list with a patch merge key in the Kubernetes API (containers and volumes by name, env by
 *   name, container ports by containerPort, volume mounts by mountPath, Service ports by port,
 *   topology spread constraints by topologyKey, ...) merges item by item: the patch's items first,
 *   in the patch's order, each merged into the item with the same key, then the items the patch
 *   does not name, in their order;
 * - every other list, and every list of a custom resource (kustomize has no schema for it), is
 *   replaced whole.
 * Patch directives (`$patch`, `$setElementOrder`, `$retainKeys`, `$deleteFromPrimitiveList`) are
 * refused: this renderer does not implement them.
 */
import { isObject, type Json, type JsonObject } from './yaml-documents';

/** Kinds of the Kubernetes API itself (core or *.k8s.io groups, and apps, batch, policy, autoscaling). */
export function isBuiltinApiVersion(apiVersion: string): boolean {
  const slash = apiVersion.indexOf('/');
  if (slash < 0) return true;
  const group = apiVersion.slice(0, slash);
  return !group.includes('.') || group.endsWith('.k8s.io');
}

const CONTAINER_LISTS = new Set(['containers', 'initContainers', 'ephemeralContainers']);

/**
 * The patch merge key of the list at `path` (field names from the object's root, list items
 * skipped), or undefined for a list that a patch replaces.
 */
export function mergeKeyOf(kind: string, path: readonly string[]): string | undefined {
  const last = path[path.length - 1];
  const parent = path[path.length - 2];
  if (CONTAINER_LISTS.has(last)) return 'name';
  if (parent !== undefined && CONTAINER_LISTS.has(parent)) {
    return ({ env: 'name', ports: 'containerPort', volumeMounts: 'mountPath', volumeDevices: 'devicePath', resizePolicy: 'resourceName' } as Record<string, string>)[last];
  }
  if (last === 'volumes' || last === 'imagePullSecrets' || last === 'resourceClaims' || last === 'schedulingGates') return 'name';
  if (last === 'topologySpreadConstraints') return 'topologyKey';
  if (last === 'hostAliases') return 'ip';
  if (kind === 'Service' && path.join('.') === 'spec.ports') return 'port';
  if (path.join('.') === 'metadata.ownerReferences') return 'uid';
  return undefined;
}

const clone = <T extends Json>(value: T): T => structuredClone(value);

function refuseDirectives(patch: JsonObject, where: string): void {
  for (const key of Object.keys(patch)) if (key.startsWith('$')) throw new Error(`${where}: patch directive ${key} is not supported`);
}

function mergeList(kind: string, path: string[], target: Json[], patch: Json[], builtin: boolean): Json[] {
  const key = builtin ? mergeKeyOf(kind, path) : undefined;
  if (key === undefined) return clone(patch);
  const keyOf = (item: Json, side: string): Json => {
    if (!isObject(item) || item[key] === undefined) throw new Error(`${path.join('.')}: a ${side} item has no merge key ${key}`);
    return item[key];
  };
  const used = new Set<number>();
  const merged: Json[] = [];
  for (const item of patch) {
    const k = keyOf(item, 'patch');
    const at = target.findIndex((t, i) => !used.has(i) && isObject(t) && t[key] === k);
    if (at >= 0) {
      used.add(at);
      merged.push(mergeValue(kind, path, target[at], item, builtin));
    } else {
      merged.push(mergeValue(kind, path, undefined, item, builtin));
    }
  }
  target.forEach((item, i) => {
    if (!used.has(i)) merged.push(clone(item));
  });
  return merged;
}

function mergeValue(kind: string, path: string[], target: Json | undefined, patch: Json, builtin: boolean): Json {
  if (isObject(patch)) {
    refuseDirectives(patch, path.join('.') || '(root)');
    const out: JsonObject = isObject(target) ? clone(target) : {};
    for (const [key, value] of Object.entries(patch)) {
      if (value === null) delete out[key];
      else out[key] = mergeValue(kind, [...path, key], out[key], value, builtin);
    }
    return out;
  }
  if (Array.isArray(patch)) return Array.isArray(target) ? mergeList(kind, path, target, patch, builtin) : mergeList(kind, path, [], patch, builtin);
  return patch;
}

/** `target` with the strategic merge patch `patch` applied (neither argument is changed). */
export function strategicMerge(target: JsonObject, patch: JsonObject): JsonObject {
  const kind = String(target['kind'] ?? '');
  const builtin = isBuiltinApiVersion(String(target['apiVersion'] ?? ''));
  return mergeValue(kind, [], target, patch, builtin) as JsonObject;
}
