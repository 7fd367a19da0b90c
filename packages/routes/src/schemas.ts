import { compileSchema, type Schema, type Validator } from '@rollup-router/core';
import {
  routeListHttpsSchema,
  routeListSchema,
  type RouteEntry,
  type RouteList,
} from './generated/schemas.js';

export type { RouteEntry, RouteList };

// ajv accepts `$schema` only at a schema's root, and each generated schema has one.
function asSubschema(schema: Schema): Schema {
  if (typeof schema === 'boolean') return schema;
  const { $schema: _ignored, ...rest } = schema;
  return rest;
}

/** A route list that must also pass the https-only schema: what operators get unless they allow http://. */
const httpsRouteListSchema: Schema = {
  title: 'Route list',
  description: 'Route entries whose base URLs are https://.',
  allOf: [asSubschema(routeListSchema), asSubschema(routeListHttpsSchema)],
};

/**
 * The schema a route list is checked against, and the one getRoutes publishes as its
 * result: one of two, chosen by `allowInsecure`, each compiled once per process.
 */
export function routeListSchemaFor(allowInsecure: boolean): Schema {
  return allowInsecure ? routeListSchema : httpsRouteListSchema;
}

export function routeListValidator(allowInsecure: boolean): Validator<RouteList> {
  return compileSchema<RouteList>(routeListSchemaFor(allowInsecure));
}
