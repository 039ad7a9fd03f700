# The box image: `assistant box serve` in a container, for `assistant box manifest` (gpucloud serverless
# containers) or any other container platform (`box manifest --format container-spec`).
#
#   docker build -t ghcr.io/<you>/assistant-box:0.1.0 .
#   docker run --rm -p 8080:8080 -e ASSISTANT_BOX_TOKEN=$(openssl rand -hex 32) ghcr.io/<you>/assistant-box:0.1.0
#   docker run --rm -p 8080:8080 -e ASSISTANT_BOX_TOKEN=… ghcr.io/<you>/assistant-box:0.1.0 --agent assistant --listen 0.0.0.0:8080
#
# Built from the npm package (what `npm pack` ships), not from the working tree: the image runs exactly
# what a user installs. The default command runs the `empty` agent (health and info only) and refuses to
# start without a token, since it listens on every interface of the container.

# ---- build: compile (npm ci runs the prepare script: tsc) and pack
FROM node:20-bookworm-slim AS build
WORKDIR /src
COPY . .
RUN npm ci --no-audit --no-fund && npm pack --silent && mkdir /pkg && tar -xzf assistant-*.tgz -C /pkg --strip-components=1

# ---- runtime: the packed files and their production dependencies, pinned by the lockfile
FROM node:20-bookworm-slim
ENV NODE_ENV=production \
    PORT=8080 \
    NO_COLOR=1
WORKDIR /opt/assistant
COPY --from=build /pkg/ ./
COPY --from=build /src/package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund \
 && npm cache clean --force \
 && ln -s /opt/assistant/bin/assistant.js /usr/local/bin/assistant
# Not root; state (~/.assistant: journals, sandbox) lives in the node user's home.
USER node
WORKDIR /home/node
EXPOSE 8080
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
# SIGTERM (docker stop, a platform scaling down) lets in-flight answers finish within --drain-timeout.
STOPSIGNAL SIGTERM
ENTRYPOINT ["assistant", "box", "serve"]
CMD ["--agent", "empty", "--listen", "0.0.0.0:8080"]
