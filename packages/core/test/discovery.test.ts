import { expect } from 'chai';
import { Ajv } from 'ajv';
import { createRequire } from 'node:module';
import type { FormatsPlugin } from 'ajv-formats';
import { createLogger, createRpc, defineMethod, definePlugin } from '@rollup-router/core';

// Loaded with require(): these CommonJS modules' default import is their exports object
// under Node's ESM loader but `exports.default` when tsx compiles this file for require(),
// which Node 22+ does. Their types declare no values, hence the casts.
const requireCjs = createRequire(import.meta.url);
type Schema = Record<string, unknown>;
const metaSchema = (requireCjs('@open-rpc/meta-schema') as { openrpcDocument: Schema }).openrpcDocument;
const addFormats = requireCjs('ajv-formats') as FormatsPlugin;
// The OpenRPC meta-schema describes its `schema` members by reference to this one.
const jsonSchemaMeta = (requireCjs('@json-schema-tools/meta-schema') as { jsonSchema: Schema }).jsonSchema;

describe('rpc.discover', () => {
  const rpc = createRpc({
    logger: createLogger({ level: 'silent' }),
    info: { title: 'Test service', version: '1.2.3' },
    plugins: [
      definePlugin({
        name: 'statuses',
        errors: [{ code: -32060, message: 'Upstream timeout', meaning: 'every upstream timed out' }],
        methods: [
          defineMethod<[string[]], unknown>({
            name: 'getStatuses',
            summary: 'Statuses of signatures.',
            params: {
              type: 'array',
              prefixItems: [
                { title: 'signatures', type: 'array', items: { type: 'string' }, maxItems: 256 },
                { title: 'config', type: 'object' },
              ],
              minItems: 1,
              maxItems: 2,
            },
            result: { type: 'object' },
            handler: () => ({}),
          }),
        ],
      }),
    ],
    methods: [
      defineMethod<{ name: string }, string>({
        name: 'custom.greet',
        params: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
        result: { type: 'string' },
        handler: ({ name }) => name,
      }),
    ],
  });
  const doc = rpc.discover();

  it('is a valid OpenRPC document by @open-rpc/meta-schema', () => {
    const { $schema: _ignored, ...schema } = metaSchema;
    // The meta-schemas are draft-07 and use the formats uri, uri-reference and regex:
    // without ajv-formats ajv ignores each one with a console warning, and checks less.
    // strict stays off: they are not ours and break its rules (additionalItems beside a
    // single-schema items), which changes nothing in what they accept.
    const ajv = new Ajv({ strict: false, validateSchema: false });
    addFormats(ajv);
    const { $schema: _alsoIgnored, ...jsonSchemaSchema } = jsonSchemaMeta;
    // It is referred to both with and without the trailing slash of its $id.
    ajv.addSchema(jsonSchemaSchema);
    ajv.addSchema({ ...jsonSchemaSchema, $id: 'https://meta.json-schema.tools' });
    const validate = ajv.compile(schema);
    const valid = validate(JSON.parse(JSON.stringify(doc)));
    expect(validate.errors ?? [], JSON.stringify(validate.errors)).to.deep.equal([]);
    expect(valid).to.equal(true);
    // The same validator refuses a document that is not OpenRPC, so the check above means something.
    expect(validate({ openrpc: '1.2.6', methods: [{ name: 'x' }] })).to.equal(false);
  });

  it('lists plugin and custom methods with params from their schemas', () => {
    expect(doc.info).to.deep.equal({ title: 'Test service', version: '1.2.3' });
    expect(doc.methods.map((m) => m.name)).to.deep.equal(['getStatuses', 'custom.greet']);
    const statuses = doc.methods[0]!;
    expect(statuses.paramStructure).to.equal('by-position');
    expect(statuses.params.map((p) => [p.name, p.required])).to.deep.equal([
      ['signatures', true],
      ['config', false],
    ]);
    const greet = doc.methods[1]!;
    expect(greet.paramStructure).to.equal('by-name');
    expect(greet.params).to.deep.equal([{ name: 'name', required: true, schema: { type: 'string' } }]);
  });
});
