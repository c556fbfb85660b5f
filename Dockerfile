# syntax=docker/dockerfile:1
#
# One image for every service of the engine; the service to run is its argument:
#
#   docker build -t regulated-payments .
#   docker run --rm --env-file service.env regulated-payments ingress     (or -e SERVICE=ingress)
#
# Stages: prune (the services' workspaces only) -> build (TypeScript to dist/) and prod-deps
# (production dependencies) -> runtime (node:slim, tini, non-root). There is no HEALTHCHECK: Kubernetes
# probes /health/live and /health/ready (infra/k8s). packages/deploy tests this file statically.

# Keep in step with .nvmrc (a test checks it).
ARG NODE_VERSION=24.21.0

# ---- prune: the services and the workspace packages they depend on, nothing else (no test kit, CLI,
# launcher or test workspaces), with a lockfile cut down to match.
FROM node:${NODE_VERSION}-slim AS prune
ENV TURBO_TELEMETRY_DISABLED=1
WORKDIR /repo
# The turbo version of the root package.json (a test checks it).
RUN npm install --global --no-audit --no-fund turbo@2.11.11
COPY . .
# Workspace devDependencies name workspaces the prune leaves out (@rp/testkit): npm would look for those on
# the public registry. No build or service needs a workspace devDependency, so they are dropped.
RUN turbo prune @rp/bank-simulator @rp/console @rp/dispatcher @rp/engine @rp/event-publisher @rp/ingress @rp/scheduler @rp/tracker @rp/validator \
      --docker --production --out-dir /pruned \
 && for dir in /pruned/json /pruned/full; do (cd "$dir" && npm pkg delete devDependencies --workspaces); done

# ---- build: compile every pruned workspace (tsc resolves workspace imports to their sources, so the
# order does not matter), then keep only each one's dist/ (and public/, the console's page, served as it is).
FROM node:${NODE_VERSION}-slim AS build
WORKDIR /app
COPY --from=prune /pruned/json/ ./
# npm install, not npm ci: the lockfile lacks other platforms' optional binaries, which npm ci refuses.
# The versions are still the lockfile's.
RUN --mount=type=cache,target=/root/.npm npm install --no-audit --no-fund --ignore-scripts
COPY --from=prune /pruned/full/ ./
COPY tsconfig.json ./
RUN npm run build --workspaces \
 && for dir in packages/* services/*; do mkdir -p "/out/$dir" && cp -R "$dir/dist" "/out/$dir/" \
      && if [ -d "$dir/public" ]; then cp -R "$dir/public" "/out/$dir/"; fi; done

# ---- prod-deps: production dependencies only (the root's devDependencies dropped as well).
FROM node:${NODE_VERSION}-slim AS prod-deps
WORKDIR /app
COPY --from=prune /pruned/json/ ./
RUN --mount=type=cache,target=/root/.npm npm pkg delete devDependencies \
 && npm install --omit=dev --no-audit --no-fund --ignore-scripts

# ---- runtime
FROM node:${NODE_VERSION}-slim AS runtime
# tini as PID 1 passes SIGTERM on to Node (which drains, then exits) and reaps zombies. npm, npx, corepack
# and yarn are not needed to run a service: removed, with their dependencies.
RUN apt-get update \
 && apt-get install --yes --no-install-recommends tini \
 && rm -rf /var/lib/apt/lists/* \
 && rm -rf /usr/local/lib/node_modules /usr/local/bin/npm /usr/local/bin/npx /usr/local/bin/corepack \
      /usr/local/bin/yarn /usr/local/bin/yarnpkg /opt/yarn-*
ENV NODE_ENV=production
WORKDIR /app
COPY --from=prod-deps /app/ ./
COPY --from=build /out/ ./
COPY --chmod=0755 infra/docker/rp-service.sh /usr/local/bin/rp-service
# The image's node user, by number so that Kubernetes' runAsNonRoot can check it. Nothing under /app
# belongs to it: the code is read-only to the service.
USER 1000:1000
EXPOSE 8080 8081 8083 8084 8085 8086 8087 8088 8090
ENTRYPOINT ["/usr/bin/tini", "--", "/usr/local/bin/rp-service"]
