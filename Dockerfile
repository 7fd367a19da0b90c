# syntax=docker/dockerfile:1
# The rollup-router reference server as an image:
#   docker build -t rollup-router .
#   docker run -p 8080:8080 -v rollup-router-data:/var/lib/rollup-router rollup-router
# NODE_IMAGE is the base of both stages: the official Node image by default. Another base works
# when it has node and npm on PATH, Node's C headers under /usr/local/include/node, apt-get,
# and a user `node` (the official images have all four). Node 22 is the default: see
# docs/node-versions.md for Node 24.
ARG NODE_IMAGE=docker.io/library/node:22-bookworm-slim

# ---- build: compile the TypeScript and better-sqlite3 for this image's Node ----
FROM ${NODE_IMAGE} AS build
# better-sqlite3 is a native addon: compiled here, with the image's own Node and headers (no
# prebuilt binary downloaded), so it matches the Node that runs it.
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
ENV npm_config_build_from_source=true \
    npm_config_nodedir=/usr/local \
    npm_config_update_notifier=false \
    npm_config_fund=false \
    npm_config_audit=false
# package-lock.json is written by npm 11; npm 10 (the one Node 22 images ship) refuses it in
# `npm ci` (it wants peerOptional utf-8-validate in the lock).
RUN npm install -g npm@11
WORKDIR /src
# Manifests first: the npm ci layer is reused until a dependency changes. Every workspace
# package is listed (test/deploy.dockerfile.test.ts checks): npm ci links only those it sees.
COPY package.json package-lock.json ./
COPY packages/core/package.json packages/core/
COPY packages/solana/package.json packages/solana/
COPY packages/routes/package.json packages/routes/
COPY packages/signature-statuses/package.json packages/signature-statuses/
COPY packages/server/package.json packages/server/
COPY packages/delegation-router/package.json packages/delegation-router/
COPY test/support/package.json test/support/
RUN npm ci
COPY tsconfig.base.json tsconfig.json ./
COPY schemas schemas
COPY scripts scripts
COPY packages packages
RUN npm run build \
 && npm prune --omit=dev \
 && node -e "new (require('better-sqlite3'))(':memory:').prepare('select 1').get()" \
 && mkdir /out \
 && cp -a package.json node_modules /out/ \
 && for p in packages/*/; do \
      mkdir -p /out/$p && cp -a $p/package.json $p/dist /out/$p; \
    done \
 && cp -a packages/server/defaults /out/packages/server/ \
 && rm -rf /out/node_modules/@rollup-router/test-support /out/packages/*/dist/.tsbuildinfo

# ---- runtime: the built server, its production dependencies, nothing else ----
FROM ${NODE_IMAGE}
# ROLLUP_ROUTER_WORKERS=auto: a server process per CPU the container is given (--cpus included),
# on one port; a rate budget stays one budget for the container (docs/workers.md).
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080 \
    ROLLUP_ROUTER_WORKERS=auto \
    ROLLUP_ROUTER_STORE_PATH=/var/lib/rollup-router/statuses.sqlite
WORKDIR /app
COPY --from=build /out /app
# The one place the server writes: the SQLite store (with its -wal and -shm files).
RUN mkdir -p /var/lib/rollup-router /etc/rollup-router \
 && chown node:node /var/lib/rollup-router
VOLUME ["/var/lib/rollup-router"]
USER node
# 8080: JSON-RPC, /health, /ready, /metrics; 8081: the WebSocket-only listener (PORT + 1).
EXPOSE 8080 8081
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/ready',{signal:AbortSignal.timeout(2500)}).then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# Node is PID 1 and the CLI handles SIGTERM itself (the primary tells every worker): new calls
# get 503, calls under way finish, then it exits within shutdown.graceMs + 12 s. Give `docker stop -t` at least that long.
STOPSIGNAL SIGTERM
ENTRYPOINT ["node", "/app/packages/server/dist/cli.js"]
# Configuration: environment variables (docs/configuration-reference.md), or a file mounted
# at /etc/rollup-router/ and named with `--config /etc/rollup-router/config.yaml`.
CMD []
