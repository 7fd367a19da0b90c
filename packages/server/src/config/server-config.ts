import type { ConfigResolved } from '../generated/schemas.js';

/**
 * The configuration after validation: schemas/config.schema.json with every key that has
 * a schema default present (generated, so it cannot drift from the schema).
 */
export type ServerConfig = ConfigResolved;
