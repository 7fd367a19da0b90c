// `@rollup-router/core/internal`: no API. Core's own HTTP rules that the reference server's
// listener (@rollup-router/server: its fallback paths, the /metrics token, the listening
// log) must apply exactly as core does, so that each rule keeps one home. Only that package
// imports it, and it is published at core's version (lerna's fixed mode): nothing here is
// promised to anyone else, and a plugin needs none of it (docs/writing-a-plugin.md).
export { bearerToken } from './bearer-token.js';
export { NOT_FOUND_BODY } from './http-status.js';
export { mountPrefix } from './mount-path.js';
export { SecretMatch } from './secret-match.js';
