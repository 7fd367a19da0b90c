import type { Schema } from './method.js';

/**
 * A copier that writes an object's members in the order its schema's `properties` list
 * them. JSON.stringify writes members in insertion order, so this is what makes the wire
 * order follow the schema rather than whoever built the object (a routes file, a
 * database row, another node's reply). Members the schema does not list are left out.
 */
export function inSchemaOrder<T extends object>(schema: Schema): (value: T) => T {
  const properties = (schema as { properties?: Record<string, unknown> }).properties;
  if (properties === undefined) throw new TypeError('inSchemaOrder needs an object schema with properties');
  const keys = Object.keys(properties);
  return (value) => {
    const ordered: Record<string, unknown> = {};
    for (const key of keys) if (key in value) ordered[key] = (value as Record<string, unknown>)[key];
    return ordered as T;
  };
}
