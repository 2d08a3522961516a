# Earshot service image: one image, every role (`start --roles …` chooses what a container runs).
FROM node:20-bookworm-slim

WORKDIR /app
ENV NODE_ENV=production \
    ONNXRUNTIME_NODE_INSTALL_CUDA=skip \
    HOST=0.0.0.0 \
    PORT=8080 \
    EARSHOT_DATA_DIR=/data

COPY package.json package-lock.json .npmrc ./
RUN npm ci --omit=dev --no-audit --no-fund

COPY bin ./bin
COPY api ./api
COPY infra ./infra
COPY ingest ./ingest
COPY processors ./processors
COPY projections ./projections
COPY schemas ./schemas
COPY test/bench ./test/bench
COPY test/support ./test/support

RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 8080

ENTRYPOINT ["node", "--max-semi-space-size=64", "bin/earshot.js"]
CMD ["start"]
