// An embedder's route source: ER nodes kept in a database table instead of a routes
// file. Anything that can list nodes and (optionally) say when the list changed can feed
// getRoutes through the RouteSource interface; what it returns is checked like a routes
// file, and a bad list keeps the last good one in service.
//
// Here the table is SQLite (better-sqlite3). Another process or connection edits it; the
// source notices through `PRAGMA data_version`, which changes when any *other*
// connection commits, and the router follows without a restart.
//
// Run: node --import tsx examples/routes-custom-source.ts
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import { createLogger, createNodeListener, createRpc } from '@rollup-router/core';
import { routesPlugin, type RouteSource } from '@rollup-router/routes';

export const ER_NODES_TABLE = `
  CREATE TABLE IF NOT EXISTS er_nodes (
    position      INTEGER PRIMARY KEY,
    identity      TEXT NOT NULL UNIQUE,
    fqdn          TEXT NOT NULL,
    base_fee      REAL NOT NULL,
    block_time_ms INTEGER NOT NULL,
    country_code  TEXT NOT NULL,
    enabled       INTEGER NOT NULL DEFAULT 1
  )`;

/** A RouteSource reading the `er_nodes` table; polls cheaply for commits by other connections. */
export function sqliteRouteSource(db: Database.Database, { pollMs = 1000 } = {}): RouteSource {
  const select = db.prepare(`
    SELECT identity, fqdn, base_fee AS baseFee, block_time_ms AS blockTimeMs, country_code AS countryCode
    FROM er_nodes WHERE enabled = 1 ORDER BY position`);
  const dataVersion = db.prepare('PRAGMA data_version').pluck();
  return {
    name: `sqlite ${db.name} er_nodes`,
    // Rows are returned as they are: the registry checks them against the route schema.
    load: async () => select.all(),
    subscribe(changed) {
      let seen = dataVersion.get();
      const timer = setInterval(() => {
        const now = dataVersion.get();
        if (now !== seen) {
          seen = now;
          changed();
        }
      }, pollMs);
      return () => clearInterval(timer);
    },
  };
}

async function getRoutes(url: string): Promise<string> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{"jsonrpc":"2.0","id":1,"method":"getRoutes"}',
  });
  return res.text();
}

export async function main(): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'routes-example-'));
  const file = path.join(dir, 'routes.sqlite');
  const reader = new Database(file);
  const writer = new Database(file); // stands in for an admin tool or another service
  reader.exec(ER_NODES_TABLE);
  const insert = writer.prepare(
    'INSERT INTO er_nodes (identity, fqdn, base_fee, block_time_ms, country_code) VALUES (?, ?, ?, ?, ?)',
  );
  insert.run('EUuc9TmseEEiF7JpjoDGpYbsj1WFM8a43figZKyVjhLj', 'https://eu.er.example.com', 5000, 50, 'DEU');

  const routes = routesPlugin({ source: sqliteRouteSource(reader, { pollMs: 50 }) });
  const rpc = createRpc({ plugins: [routes], logger: createLogger({ level: 'warn' }) });
  await rpc.start();
  const server = http.createServer(createNodeListener(rpc));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    console.log(`getRoutes ${await getRoutes(url)}`);

    // Another connection adds a node; the registry hears of it and getRoutes follows.
    const changed = new Promise((resolve) => routes.registry.onChange(resolve));
    insert.run('mAGicPQYBMvcYveUZA5F5UNNwyHvfYh5xkLS2Fr1mev', 'https://us.er.example.com', 0, 50, 'USA');
    await changed;
    console.log(`getRoutes ${await getRoutes(url)}`);

    // A bad row (no such country) is refused; the last good list stays in service.
    insert.run('9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM', 'https://xx.er.example.com', 0, 50, 'XXX');
    const [problem] = await routes.registry.reload();
    console.log(`refused: ${problem?.message}`);
    console.log(`getRoutes ${await getRoutes(url)}`);
  } finally {
    server.close();
    await rpc.stop();
    reader.close();
    writer.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
