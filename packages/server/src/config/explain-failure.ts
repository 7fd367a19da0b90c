import { compileSchema, type Schema, type ValidationFailure } from '@rollup-router/core';

type Node = Record<string, unknown>;
const isNode = (v: unknown): v is Node => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The sub-schema that describes the value at a JSON pointer (through properties, items and allOf). */
export function schemaAt(schema: Schema, pointer: string): Node | undefined {
  let nodes: Node[] = isNode(schema) ? [schema] : [];
  for (const segment of pointer.split('/').slice(1)) {
    const next: Node[] = [];
    const visit = (n: Node): void => {
      const props = n.properties;
      if (isNode(props) && isNode(props[segment])) next.push(props[segment]);
      if (/^\d+$/.test(segment) && isNode(n.items)) next.push(n.items);
      if (Array.isArray(n.allOf)) n.allOf.filter(isNode).forEach(visit);
    };
    nodes.forEach(visit);
    nodes = next;
  }
  return nodes.find((n) => n.description !== undefined || n.oneOf !== undefined) ?? nodes[0];
}

function valueAt(root: unknown, pointer: string): unknown {
  let v = root;
  for (const segment of pointer.split('/').slice(1))
    v = isNode(v) || Array.isArray(v) ? (v as Node)[segment] : undefined;
  return v;
}

const jsonType = (v: unknown): string =>
  v === null ? 'null' : Array.isArray(v) ? 'array' : Number.isInteger(v) ? 'integer' : typeof v;

/**
 * A failure inside a `oneOf` is reported by ajv against its first branch ("must be equal
 * to constant" for `rateLimit: {points: 1}`); the branch of the value's own type says
 * what is really wrong ("must have required property 'durationSeconds'").
 */
export function explainFailure(
  schema: Schema,
  value: unknown,
  failure: ValidationFailure,
): ValidationFailure {
  let pointer = failure.path === '/' ? '' : failure.path;
  for (;;) {
    const node = schemaAt(schema, pointer);
    if (node && Array.isArray(node.oneOf)) {
      const v = valueAt(value, pointer);
      const t = jsonType(v);
      const branch = node.oneOf.find(
        (b) =>
          isNode(b) && (b.type === t || (b.type === 'number' && t === 'integer')) && b.const === undefined,
      );
      if (!isNode(branch)) return failure;
      const validate = compileSchema(branch);
      return validate(structuredClone(v)) ? failure : validate.failure(pointer);
    }
    if (pointer === '') return failure;
    pointer = pointer.slice(0, pointer.lastIndexOf('/'));
  }
}
