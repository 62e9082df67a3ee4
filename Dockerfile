# syntax=docker/dockerfile:1
# token-gateway: the gateway image. The compose file (docker-compose.yml) also
# runs the demo upstream and the one-shot secrets job from this same image.
#
# Base: Debian 12 (bookworm) slim, Node 20 pinned to its minor. Debian, not
# Alpine, because the password hashing is @node-rs/argon2, a native prebuilt
# module: package-lock.json carries its glibc builds (linux-x64-gnu,
# linux-arm64-gnu), which bookworm's glibc runs as is, with no compiler in
# the image. Pin a digest here (node:20.20-bookworm-slim@sha256:...) to make
# rebuilds byte-for-byte repeatable.
ARG NODE_IMAGE=node:20.20-bookworm-slim

# --- build: every dependency, TypeScript to dist/ ---------------------------
FROM ${NODE_IMAGE} AS build
WORKDIR /app
# The client SDK is an npm workspace (packages/client) that the gateway depends
# on: npm ci needs its package.json to resolve the lock file.
COPY package.json package-lock.json ./
COPY packages/client/package.json ./packages/client/
# --ignore-scripts: `prepare` would run the build before the sources are here.
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json ./
COPY packages/client/build.mjs packages/client/tsconfig.esm.json packages/client/tsconfig.cjs.json ./packages/client/
COPY packages/client/src ./packages/client/src
COPY src ./src
# The client first (packages/client/dist), then the gateway (dist/).
RUN npm run build

# --- runtime: production dependencies and dist/ only ------------------------
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
COPY packages/client/package.json ./packages/client/
# No dependency needs an install script (argon2 arrives prebuilt), and
# `prepare` would need the dev dependencies.
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
# node_modules/@token-gateway/client links to packages/client: its build goes
# with it, so that the gateway's imports of @token-gateway/client resolve.
COPY --from=build /app/packages/client/dist ./packages/client/dist
# No configuration in the image: gateway.yaml and accounts.yaml (folder
# config/) and policies/ are mounted under /etc/token-gateway as folders (see
# docker-compose.yml), so an image never carries the DEMO accounts into a
# deployment by accident. Without a mounted gateway.yaml, `serve` exits 1
# saying which file it could not read.
# The secrets folder belongs to `node` so that a named volume mounted on it
# starts out writable by the secrets job (Docker copies the owner into an
# empty volume); the gateway mounts it read-only.
RUN install -d -o root -g root -m 0755 /etc/token-gateway \
 && install -d -o node -g node -m 0700 /etc/token-gateway/secrets
USER node

# 8080 the gateway, 8443 its HTTPS listener (when `tls` is configured), 9901 the
# admin listener (probes, metrics, admin API).
EXPOSE 8080 8443 9901
# serve stops gracefully on SIGTERM: in-flight requests get limits.shutdown_grace
# (10 s). Give the container more than that to stop (compose: stop_grace_period;
# docker run: --stop-timeout 15), or Docker's SIGKILL cuts the last requests.
STOPSIGNAL SIGTERM
# The admin listener's /livez, with Node's fetch: the slim image has no curl.
# TOKEN_GATEWAY_HEALTHCHECK_URL overrides the default http://127.0.0.1:9901/livez.
HEALTHCHECK --interval=10s --timeout=3s --start-period=15s --retries=3 \
  CMD ["node", "dist/deploy/healthcheck.js"]
# Node flags: NODE_FLAGS of src/cli/node-flags.ts (two V8 helper threads, no allocation-site pretenuring; a test holds them alike).
ENTRYPOINT ["node", "--v8-pool-size=2", "--no-allocation-site-pretenuring", "dist/cli/main.js"]
CMD ["serve", "--config", "/etc/token-gateway/config/gateway.yaml"]
