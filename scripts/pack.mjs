#!/usr/bin/env node
// Writes the tarball of every publishable workspace package into packs/ (npm pack), so the
// packages can be installed before they are on a registry: docs/install.md says how.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const out = path.join(root, 'packs');
const { workspaces } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
const publishable = workspaces.filter(
  (dir) => !JSON.parse(readFileSync(path.join(root, dir, 'package.json'), 'utf8')).private,
);
mkdirSync(out, { recursive: true });
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const args = ['pack', '--pack-destination', out, ...publishable.flatMap((dir) => ['--workspace', dir])];
const written = JSON.parse(execFileSync(npm, [...args, '--json'], { cwd: root, encoding: 'utf8' }));
for (const { filename } of written) console.log(path.join('packs', filename));
