// deploy/compose.yaml, checked without a container engine (docker compose is not on these
// machines; Debian's podman-compose 1.0 has no `config` and its --dry-run creates networks):
// it parses, every file it mounts exists, the pieces agree with each other (HAProxy probes
// /ready on the routers, Prometheus scrapes their metrics port, Grafana gets the dashboard),
// only the load balancer listens beyond localhost, and the routers' config is valid.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { expect } from 'chai';
import { parse } from 'yaml';
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

const compose = parse(readFileSync(join(DEPLOY, 'compose.yaml'), 'utf8'), { merge: true }) as {
  services: Record<string, Service>;
  volumes: Record<string, unknown>;
};
const routers = ['router-1', 'router-2'];
const routerConfig = parse(readFileSync(join(DEPLOY, 'router/config.yaml'), 'utf8')) as {
  port: number;
  metrics: { port: number };
};

describe('deploy/compose.yaml', function () {
  this.timeout(60_000);

  it('has two routers, HAProxy, Redis, Prometheus and Grafana', () => {
    expect(Object.keys(compose.services).sort()).to.deep.equal(
      ['grafana', 'haproxy', 'prometheus', 'redis', ...routers].sort(),
    );
    for (const r of routers) {
      expect(
        existsSync(join(resolve(DEPLOY, compose.services[r]!.build!.context), 'Dockerfile')),
        r,
      ).to.equal(true);
    }
  });

  it('mounts only files and directories that exist, and named volumes it declares', () => {
    for (const [name, service] of Object.entries(compose.services)) {
      for (const volume of service.volumes ?? []) {
        const source = volume.split(':')[0]!;
        if (source.startsWith('.') || isAbsolute(source))
          expect(existsSync(resolve(DEPLOY, source)), `${name}: ${volume}`).to.equal(true);
        else expect(compose.volumes, `${name}: ${volume}`).to.have.property(source);
      }
    }
  });

  it('publishes the load balancer only; Prometheus and Grafana on localhost; routers and Redis not at all', () => {
    for (const [name, service] of Object.entries(compose.services)) {
      const ports = service.ports ?? [];
      if (name === 'haproxy') expect(ports).to.deep.equal(['${LISTEN:-0.0.0.0}:8080:8080']);
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
    for (const r of routers) expect(cfg).to.include(`server ${r} ${r}:${routerConfig.port}`);
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
    const mounted = compose.services.grafana!.volumes!.find((v) =>
      v.startsWith('./grafana/rollup-router.json:'),
    );
    expect(mounted?.split(':')[1]).to.equal(`${dashboards.providers[0]!.options.path}/rollup-router.json`);
  });

  it('the routers’ config is valid with the environment compose gives them', async () => {
    const env = compose.services['router-1']!.environment!;
    const checked = await runCli(['check-config', join(DEPLOY, 'router/config.yaml')], {
      ROLLUP_ROUTER_ROUTES_FILE: env.ROLLUP_ROUTER_ROUTES_FILE!.replace(
        '/etc/rollup-router',
        join(DEPLOY, 'router'),
      ),
      ROLLUP_ROUTER_REDIS_URL: env.ROLLUP_ROUTER_REDIS_URL!,
      ROLLUP_ROUTER_STORE_PATH: 'off',
    });
    expect(checked.code, checked.stderr).to.equal(0);
    expect(checked.stdout).to.match(/valid .*; [1-9]\d* route\(s\)/);
  });
});
