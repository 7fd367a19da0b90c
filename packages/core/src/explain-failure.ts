import type { ValidationFailure } from './errors.js';
import type { Schema } from './method.js';
import { closestName } from './closest-name.js';
import { compileSchema } from './validation.js';

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

/** A schema alternative in words, for "must be one of: ...". */
function describeBranch(b: Node): string {
  if (b.const !== undefined) return JSON.stringify(b.const);
  if (Array.isArray(b.enum)) return b.enum.map((v) => JSON.stringify(v)).join(', ');
  if (b.type === 'object' && isNode(b.properties))
    return `an object {${Object.keys(b.properties).join(', ')}}`;
  if (b.type === 'array')
    return isNode(b.items) && typeof b.items.type === 'string' ? `an array of ${b.items.type}s` : 'an array';
  return typeof b.type === 'string' ? `a${/^[aeiou]/.test(b.type) ? 'n' : ''} ${b.type}` : 'a value';
}

/** Enum and const failures say which values would do, not only that this one does not. */
function withAllowedValues(failure: ValidationFailure): ValidationFailure {
  const { rule, params } = failure;
  if (rule === 'enum' && Array.isArray(params.allowedValues)) {
    const values = params.allowedValues.map((v) => JSON.stringify(v)).join(', ');
    return { ...failure, message: `must be one of: ${values}` };
  }
  if (rule === 'const' && 'allowedValue' in params) {
    return { ...failure, message: `must be ${JSON.stringify(params.allowedValue)}` };
  }
  return failure;
}

/** The member names a schema node allows (its own properties and its allOf parts'). */
function knownNames(node: Node | undefined): string[] {
  if (!node) return [];
  const own = isNode(node.properties) ? Object.keys(node.properties) : [];
  const parts = Array.isArray(node.allOf) ? node.allOf.filter(isNode).flatMap(knownNames) : [];
  return [...own, ...parts];
}

/** An unexpected member names itself and, when one is close, the known member it may have meant. */
function unknownMember(schema: Schema, failure: ValidationFailure): ValidationFailure {
  const name = String(failure.params.additionalProperty);
  const parent = failure.path.slice(0, failure.path.lastIndexOf('/'));
  const known = knownNames(schemaAt(schema, parent));
  const suggestion = closestName(name, known);
  const hint = suggestion === undefined ? '' : ` (did you mean "${suggestion}"?)`;
  return { ...failure, message: `is not a known member${hint}` };
}

/**
 * A failure inside a `oneOf` is reported by ajv against its first branch ("must be equal
 * to constant" for `rateLimit: {points: 1}`); the branch of the value's own type says
 * what is really wrong ("must have required property 'durationSeconds'"). When no branch
 * has the value's type, the failure lists the alternatives.
 */
export function explainFailure(
  schema: Schema,
  value: unknown,
  failure: ValidationFailure,
): ValidationFailure {
  if (failure.rule === 'additionalProperties') return unknownMember(schema, failure);
  let pointer = failure.path === '/' ? '' : failure.path;
  for (;;) {
    const node = schemaAt(schema, pointer);
    if (node && Array.isArray(node.oneOf)) {
      const v = valueAt(value, pointer);
      const t = jsonType(v);
      const branches = node.oneOf.filter(isNode);
      const branch = branches.find(
        (b) => (b.type === t || (b.type === 'number' && t === 'integer')) && b.const === undefined,
      );
      if (!branch) {
        const alternatives = branches.map(describeBranch).join(', ');
        return {
          path: pointer || '/',
          rule: 'oneOf',
          message: `must be one of: ${alternatives}`,
          params: {},
        };
      }
      const validate = compileSchema(branch);
      return withAllowedValues(validate(structuredClone(v)) ? failure : validate.failure(pointer));
    }
    if (pointer === '') return withAllowedValues(failure);
    pointer = pointer.slice(0, pointer.lastIndexOf('/'));
  }
}
