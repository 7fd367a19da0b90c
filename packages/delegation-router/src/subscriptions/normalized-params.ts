import type { Schema } from '@rollup-router/core';

type Node = {
  readonly properties?: Record<string, Node>;
  readonly items?: Node;
  readonly prefixItems?: readonly Node[];
};

/**
 * A subscribe call's params as relayed: at every depth its schema describes, only the
 * members the schema lists (unknown ones are dropped, as Agave ignores them), in the
 * schema's order; a trailing config that is left empty (or null) is left out. What a
 * client may vary without changing what it is notified does not split one upstream
 * subscription into many: the relay's key is this, and it is what goes upstream.
 */
export function normalizedParams(schema: Schema, params: readonly unknown[] | undefined): unknown[] {
  const items = (schema as Node).prefixItems ?? [];
  const out = (params ?? []).map((p, i) => normalized(items[i], p));
  while (out.length > 1 && isEmpty(out.at(-1))) out.pop();
  return out;
}

function normalized(schema: Node | undefined, value: unknown): unknown {
  if (schema === undefined || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => normalized(schema.items, v));
  if (schema.properties === undefined) return value;
  const kept: Record<string, unknown> = {};
  for (const [key, member] of Object.entries(schema.properties)) {
    const v = (value as Record<string, unknown>)[key];
    if (v !== undefined) kept[key] = normalized(member, v);
  }
  return kept;
}

const isEmpty = (value: unknown): boolean =>
  value === null || (typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length === 0);
