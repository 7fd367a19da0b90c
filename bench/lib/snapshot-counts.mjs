// Counts a V8 heap snapshot's nodes by constructor (objects, closures, arrays...) and compares
// two: what grew between two readings is what a leak keeps (rss-unknown.mjs --snapshots).
import { readFileSync } from 'node:fs';

/** `{ "<type>:<name>": { count, bytes } }` of one .heapsnapshot file. */
export function constructorCounts(file) {
  const { snapshot, nodes, strings } = JSON.parse(readFileSync(file, 'utf8'));
  const fields = snapshot.meta.node_fields;
  const types = snapshot.meta.node_types[0];
  const [type, name, size] = ['type', 'name', 'self_size'].map((f) => fields.indexOf(f));
  const counts = {};
  for (let i = 0; i < nodes.length; i += fields.length) {
    const kind = types[nodes[i + type]];
    // Strings and numbers are named by their value: one bucket per kind.
    const key = ['object', 'closure', 'native'].includes(kind) ? `${kind}:${strings[nodes[i + name]]}` : kind;
    const c = (counts[key] ??= { count: 0, bytes: 0 });
    c.count += 1;
    c.bytes += nodes[i + size];
  }
  return counts;
}

/** The constructors whose count grew from `before` to `after` by more than `min`, most first. */
export function grownConstructors(before, after, min = 100) {
  const [a, b] = [constructorCounts(before), constructorCounts(after)];
  return Object.entries(b)
    .map(([key, { count, bytes }]) => ({
      key,
      count: count - (a[key]?.count ?? 0),
      bytes: bytes - (a[key]?.bytes ?? 0),
    }))
    .filter((d) => d.count > min)
    .sort((x, y) => y.count - x.count)
    .slice(0, 15);
}
