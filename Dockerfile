# syntax=docker/dockerfile:1
# The image-policy host: `docker build -t image-policy .` then see docs/deploy.md and compose.yaml.
#
# Node 24 as the repository's `node` devDependency pins it (package.json); the slim Debian variant
# has no compiler or curl. Pass --build-arg NODE_VERSION=24 to follow the newest 24.x, or pin a
# digest (node:24.21.0-slim@sha256:…) in your registry's mirror for reproducible builds.
ARG NODE_VERSION=24.21.0

# --- build: every dependency, the TypeScript build, then the production tree -----------------------
FROM node:${NODE_VERSION}-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
COPY packages/core/package.json packages/core/
COPY packages/adapters/package.json packages/adapters/
COPY packages/client/package.json packages/client/
COPY packages/console/package.json packages/console/
COPY packages/host/package.json packages/host/
# `npm ci` fails on this project's registry (STACK.md); `npm install` still follows the lockfile.
# No install scripts: they would fetch the `node` and `deno` devDependencies' binaries, which the
# build does not use (the image's own Node runs tsup), and `prepare` would build before the sources
# are here.
RUN npm install --no-audit --no-fund --ignore-scripts
COPY tsconfig.base.json tsconfig.json ./
COPY packages/core packages/core
COPY packages/adapters packages/adapters
COPY packages/client packages/client
# the web console (Vite): built into packages/console/dist, which the host serves at / (http/Console.ts)
COPY packages/console packages/console
COPY packages/host packages/host
COPY scripts scripts
RUN npm run build
# the packages' dist and bin, their package.json files and the production dependencies only
RUN node scripts/production-tree.js /out

# --- runtime: Node, the built packages and their production dependencies, as a non-root user ------
FROM node:${NODE_VERSION}-slim AS runtime
ENV NODE_ENV=production \
    IMAGE_POLICY_LOG_FORMAT=json
# the application is owned by root and read-only for the user that runs it
COPY --from=build /out /app
# the working directory holds the default embedded store (pglite:.image-policy/data) and its
# secret.key when no DATABASE_URL is given: mount a volume here to keep it
RUN mkdir -p /data && chown node:node /data
WORKDIR /data
VOLUME ["/data"]
# the `node` user (uid 1000) of the official image
USER node
EXPOSE 8080
# no curl in a slim image: Node's fetch. /healthz answers while the process runs; orchestrators
# that route traffic should probe /readyz (store reachable, migrations current, workers running).
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:8080/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
STOPSIGNAL SIGTERM
ENTRYPOINT ["node", "/app/packages/host/bin/image-policy.js"]
CMD ["serve", "--host", "0.0.0.0", "--port", "8080"]
