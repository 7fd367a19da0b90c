#!/usr/bin/env node
// Writes schemas/country-code.schema.json: an `enum` of every ISO 3166-1 alpha-3 code
// that the maintained i18n-iso-countries package knows. The output is committed, so the
// server needs no country table at run time; run this again after upgrading that package
// (a unit test fails when the two drift apart).
import { writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const countries = require('i18n-iso-countries');
const { version } = require('i18n-iso-countries/package.json');

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const out = path.join(root, 'schemas', 'country-code.schema.json');

const codes = Object.keys(countries.getAlpha3Codes()).sort();
const schema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  title: 'Country code',
  description: `ISO 3166-1 alpha-3 code of a country: three uppercase letters. Generated from i18n-iso-countries ${version} by packages/routes/scripts/gen-country-codes.mjs; do not edit by hand.`,
  type: 'string',
  enum: codes,
};
await writeFile(out, JSON.stringify(schema, null, 2) + '\n');
console.log(`${path.relative(root, out)}: ${codes.length} codes`);
