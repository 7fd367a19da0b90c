// deploy/compose.yaml and compose.grafana.yaml, checked without a container engine (Compose v2
// cannot be installed here; Debian's podman-compose 1.0 has no `config` and its --dry-run
// creates networks): they match the compose-spec schema (test/fixtures/compose-spec.schema.json,
// schema/compose-spec.json of the compose-spec/compose-spec repository at 170098b, Apache-2.0)
// as a stand-in for Compose v2, Debian's docker-compose 1.29 reads them and podman-compose 1.0
// substitutes every variable in them, images have fully qualified names, every file they mount
// exists, the pieces agree with each other (HAProxy probes /ready on the routers, Prometheus
// scrapes their metrics port, Grafana gets the dashboard), only the load balancer listens
// beyond localhost, and the routers' config is valid.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { HttpRefusal } from '@rollup-router/core';
import { Ajv } from 'ajv';
import draft07 from 'ajv/dist/refs/json-schema-draft-07.json' with { type: 'json' };
import { expect } from 'chai';
import { parse } from 'yaml';
import { podmanComposePython, podmanComposeScript } from '@rollup-router/test-support/podman-compose';
import { hasTool } from '@rollup-router/test-support/system-tool';
import { REPO, runCli, tempDir } from './server.harness.js';

const DEPLOY = join(REPO, 'deploy');

interface Service {
  build?: { context: string; args?: Record<string, string> };
  image?: string;
  command?: string[];
  environment?: Record<string, string>;
  volumes?: string[];
  ports?: string[];
  healthcheck?: { test: string[] };
}

interface ComposeFile {
  services: Record<string, Service>;
  volumes: Record<string, unknown>;
}

const FILES = ['compose.yaml', 'compose.grafana.yaml'];
const text = (file: string): string => readFileSync(join(DEPLOY, file), 'utf8');
const parsed = (file: string): ComposeFile => parse(text(file), { merge: true }) as ComposeFile;
const compose = parsed('compose.yaml');
const grafana = parsed('compose.grafana.yaml');
/** Both files as `docker compose -f compose.yaml -f compose.grafana.yaml` merges them (no service in both). */
const stack: ComposeFile = {
  services: { ...compose.services, ...grafana.services },
  volumes: { ...compose.volumes, ...grafana.volumes },
};
const routers = ['router-1', 'router-2'];
const routerConfig = parse(readFileSync(join(DEPLOY, 'router/config.yaml'), 'utf8')) as {
  port: number;
  metrics: { port: number };
};

describe('deploy/compose.yaml', function () {
  this.timeout(60_000);

  it('has two routers, HAProxy, Redis and Prometheus; Grafana in a file of its own', () => {
    expect(Object.keys(compose.services).sort()).to.deep.equal(
      ['haproxy', 'prometheus', 'redis', ...routers].sort(),
    );
    expect(Object.keys(grafana.services)).to.deep.equal(['grafana']);
    for (const r of routers) {
      expect(
        existsSync(join(resolve(DEPLOY, compose.services[r]!.build!.context), 'Dockerfile')),
        r,
      ).to.equal(true);
    }
  });

  it('matches the compose-spec schema (a stand-in for Compose v2)', () => {
    const schema = JSON.parse(
      readFileSync(join(REPO, 'test/fixtures/compose-spec.schema.json'), 'utf8'),
    ) as object;
    const ajv = new Ajv({ allErrors: true, strict: false });
    // The schema names draft-07 by its https address; ajv knows it by its http one.
    ajv.addMetaSchema({ ...draft07, $id: 'https://json-schema.org/draft-07/schema' });
    const validate = ajv.compile(schema);
    for (const file of FILES) {
      validate(parsed(file));
      expect(validate.errors ?? [], file).to.deep.equal([]);
    }
  });

  it('names every image in full: podman has no default registry to complete a short name', () => {
    for (const [name, service] of Object.entries(stack.services)) {
      // An image a variable may replace is judged by its default, the name used when it is unset.
      const image = /^\$\{[A-Z_][A-Z0-9_]*:-([^}]+)\}$/.exec(service.image ?? '')?.[1] ?? service.image ?? '';
      const registry = image.split('/')[0]!;
      expect(image.split('/').length > 1 && /[.:]|^localhost$/.test(registry), `${name}: ${image}`).to.equal(
        true,
      );
    }
    expect(compose.services['router-1']!.build!.args!.NODE_IMAGE).to.match(/:-docker\.io\/library\/node:/);
  });

  it('writes variables only as ${NAME} or ${NAME:-default}, which docker-compose 1.29 and podman-compose 1.0 read alike', () => {
    for (const file of FILES) {
      // Every value as written (comments left out).
      for (const [variable] of JSON.stringify(parse(text(file))).matchAll(/\$\{[^}]*\}/g))
        expect(variable, file).to.match(/^\$\{[A-Z_][A-Z0-9_]*(:-[^}]+)?\}$/);
    }
  });

  it('Debian’s docker-compose 1.29 reads both files (docker-compose config)', function () {
    if (!hasTool('docker-compose')) this.skip();
    const checked = spawnSync(
      'docker-compose',
      ['-p', 'rollup-router', ...FILES.flatMap((f) => ['-f', f]), 'config', '--quiet'],
      { cwd: DEPLOY, encoding: 'utf8', env: { PATH: process.env.PATH } },
    );
    expect(checked.status, checked.stderr).to.equal(0);
  });

  it('Debian’s podman-compose 1.0 substitutes every variable (none is passed on as written)', function () {
    // Its own substitution, run by the Python that runs it.
    const script = podmanComposeScript();
    if (script === undefined) this.skip();
    const substituted = podmanComposePython(
      script,
      'import json, sys, yaml, podman_compose as pc\n' +
        'for f in sys.argv[1:]: print(json.dumps(pc.rec_subs(yaml.safe_load(open(f)), {})))',
      FILES,
      { cwd: DEPLOY },
    );
    expect(substituted.status, substituted.stderr).to.equal(0);
    expect(substituted.stdout.match(/\$\{[^}]*\}/g) ?? []).to.deep.equal([]);
    expect(substituted.stdout).to.include('"NODE_IMAGE": "docker.io/library/node:22-bookworm-slim"');
  });

  it('mounts only files and directories that exist, and named volumes it declares', () => {
    for (const { services, volumes } of [compose, grafana]) {
      for (const [name, service] of Object.entries(services)) {
        for (const volume of service.volumes ?? []) {
          const source = volume.split(':')[0]!;
          if (source.startsWith('.') || isAbsolute(source))
            expect(existsSync(resolve(DEPLOY, source)), `${name}: ${volume}`).to.equal(true);
          else expect(volumes, `${name}: ${volume}`).to.have.property(source);
        }
      }
    }
  });

  it('publishes the load balancer only (its port and port + 1 for web3.js); Prometheus and Grafana on localhost; routers and Redis not at all', () => {
    for (const [name, service] of Object.entries(stack.services)) {
      const ports = service.ports ?? [];
      if (name === 'haproxy')
        expect(ports).to.deep.equal(['${LISTEN:-0.0.0.0}:8080:8080', '${LISTEN:-0.0.0.0}:8081:8081']);
      else for (const p of ports) expect(p, name).to.match(/^127\.0\.0\.1:/);
      if (name.startsWith('router') || name === 'redis') expect(ports, name).to.deep.equal([]);
    }
  });

  it('Redis has a healthcheck and a memory policy; the routers wait for it and use it', () => {
    const redis = compose.services.redis!;
    expect(redis.healthcheck?.test).to.include('ping');
    expect(redis.command).to.include('--maxmemory-policy');
    expect(redis.command).to.include('--maxmemory');
    for (const r of routers)
      expect(compose.services[r]!.environment!.ROLLUP_ROUTER_REDIS_URL).to.equal('redis://redis:6379');
  });

  it('HAProxy sends traffic only to routers whose /ready answers 200', () => {
    const cfg = readFileSync(join(DEPLOY, 'haproxy/haproxy.cfg'), 'utf8');
    expect(cfg).to.match(/http-check send meth GET uri \/ready/);
    expect(cfg).to.match(/http-check expect status 200/);
    // It sends elsewhere only what a router never read: a refused connection, or a 503,
    // which the routers answer only for refusals made before reading (core's status table).
    expect(cfg.match(/^\s*retry-on .*$/gm)?.map((l) => l.trim())).to.deep.equal([
      'retry-on conn-failure 503',
    ]);
    expect(
      Object.entries(HttpRefusal)
        .filter(([, { status }]) => status === 503)
        .map(([why]) => why),
    ).to.deep.equal(['SHUTTING_DOWN', 'TOO_MANY_CONNECTIONS']);
    // Addresses from the environment, the stack's own by default.
    for (const [i, r] of routers.entries())
      expect(cfg).to.include(`server ${r} "\${ROUTER_${i + 1}-${r}:${routerConfig.port}}"`);
  });

  it('Prometheus scrapes both routers on their metrics port, with the alert rules (promtool check config)', function () {
    const text = readFileSync(join(DEPLOY, 'prometheus/prometheus.yml'), 'utf8');
    const prom = parse(text) as {
      scrape_configs: { job_name: string; static_configs: { targets: string[] }[] }[];
    };
    const job = prom.scrape_configs.find((j) => j.job_name === 'rollup-router');
    expect(job?.static_configs.flatMap((s) => s.targets)).to.deep.equal(
      routers.map((r) => `${r}:${routerConfig.metrics.port}`),
    );
    expect(compose.services.prometheus!.volumes).to.include(
      './prometheus/alerts.yaml:/etc/prometheus/alerts.yaml:ro',
    );
    if (!hasTool('promtool')) return;
    const tmp = tempDir();
    try {
      const file = join(tmp.dir, 'prometheus.yml');
      writeFileSync(
        file,
        text.replace('/etc/prometheus/alerts.yaml', join(DEPLOY, 'prometheus/alerts.yaml')),
      );
      const checked = spawnSync('promtool', ['check', 'config', file], { encoding: 'utf8' });
      expect(checked.status, `${checked.stdout}${checked.stderr}`).to.equal(0);
    } finally {
      tmp.remove();
    }
  });

  it('Grafana gets the Prometheus data source and the dashboard', () => {
    const ds = parse(
      readFileSync(join(DEPLOY, 'grafana/provisioning/datasources/prometheus.yaml'), 'utf8'),
    ) as {
      datasources: { type: string; url: string; isDefault: boolean }[];
    };
    expect(ds.datasources[0]).to.include({
      type: 'prometheus',
      url: 'http://prometheus:9090',
      isDefault: true,
    });
    const dashboards = parse(
      readFileSync(join(DEPLOY, 'grafana/provisioning/dashboards/rollup-router.yaml'), 'utf8'),
    ) as {
      providers: { options: { path: string } }[];
    };
    const mounted = grafana.services.grafana!.volumes!.find((v) =>
      v.startsWith('./grafana/rollup-router.json:'),
    );
    expect(mounted?.split(':')[1]).to.equal(`${dashboards.providers[0]!.options.path}/rollup-router.json`);
  });

  it('the routers’ config is valid with the environment compose gives them, its variables unset', async () => {
    const env = Object.fromEntries(
      Object.entries(compose.services['router-1']!.environment!).map(([k, v]) => [
        k,
        v.replace(/\$\{[A-Z_]+\}/g, '').replace('/etc/rollup-router', join(DEPLOY, 'router')),
      ]),
    );
    expect(env.ROLLUP_ROUTER_API_KEYS).to.equal('');
    const checked = await runCli(['check-config', env.ROLLUP_ROUTER_CONFIG!], {
      ...env,
      ROLLUP_ROUTER_STORE_PATH: 'off',
    });
    expect(checked.code, checked.stderr).to.equal(0);
    expect(checked.stdout).to.match(/valid .*; [1-9]\d* route\(s\)/);
  });
});

/** podman-compose's script, when it is installed. */
