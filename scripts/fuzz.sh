#!/usr/bin/env bash
# Fuzzes the running demo service with schemathesis: every operation of /openapi.json, every
# check. Fails on any 5xx, response-schema violation or other conformance failure (see
# scripts/fuzz/verdict.py for the one advisory check). Everything stays on 127.0.0.1: the service,
# a mail sink, and webhook URLs (rewritten to loopback by scripts/fuzz/hooks.py).
#
#   scripts/fuzz.sh                      # the CI run: 25 examples per operation
#   FUZZ_EXAMPLES=500 scripts/fuzz.sh    # a longer campaign
#   FUZZ_SEED=123 scripts/fuzz.sh        # replay a run's seed (printed at the end of each run)
#
# Needs python3 (3.10+) and the embeddings model in the test cache (`npm test` fetches it) so
# semantic search answers. Reports: .tools/fuzz-report/.
set -euo pipefail
cd "$(dirname "$0")/.."

SCHEMATHESIS_VERSION=4.32.5
VENV=.tools/fuzz-venv
REPORT=.tools/fuzz-report
EXAMPLES=${FUZZ_EXAMPLES:-25}
MODELS_DIR=${EARSHOT_TEST_MODELS_DIR:-${TMPDIR:-/tmp}/earshot-test-models}
KEY=esk_fuzz_$(od -An -tx1 -N16 /dev/urandom | tr -d ' \n')

log() { printf 'fuzz: %s\n' "$*" >&2; }

if [[ "$("$VENV/bin/st" --version 2>/dev/null || true)" != *"$SCHEMATHESIS_VERSION"* ]]; then
  log "installing schemathesis $SCHEMATHESIS_VERSION into $VENV"
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet --disable-pip-version-check "schemathesis==$SCHEMATHESIS_VERSION"
fi
if [[ ! -f "$MODELS_DIR/all-MiniLM-L6-v2-int8/manifest.json" ]]; then
  log "no embeddings model in $MODELS_DIR: run npm test (or EARSHOT_MODELS_DIR=$MODELS_DIR npx earshot models fetch) first"
  exit 2
fi

DATA=$(mktemp -d "${TMPDIR:-/tmp}/earshot-fuzz-XXXXXX")
SINK_PID=
SERVICE_PID=
cleanup() {
  [[ -n "$SERVICE_PID" ]] && kill -TERM "$SERVICE_PID" 2>/dev/null && wait "$SERVICE_PID" 2>/dev/null || true
  [[ -n "$SINK_PID" ]] && kill -TERM "$SINK_PID" 2>/dev/null && wait "$SINK_PID" 2>/dev/null || true
  rm -rf "$DATA"
}
trap cleanup EXIT

node --import tsx scripts/fuzz/smtp-sink.ts >"$DATA/smtp.port" &
SINK_PID=$!
for _ in $(seq 100); do [[ -s "$DATA/smtp.port" ]] && break; sleep 0.1; done
SMTP_PORT=$(head -1 "$DATA/smtp.port")
PORT=$(node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")
URL="http://127.0.0.1:$PORT"

log "starting the demo service on $URL (data: $DATA)"
HOST=127.0.0.1 PORT=$PORT EARSHOT_DATA_DIR="$DATA/data" EARSHOT_DEMO=on \
  EARSHOT_BOOTSTRAP_API_KEY=$KEY RATE_LIMIT_PER_MINUTE=10000000 \
  RATE_LIMIT_FAILED_AUTH_PER_MINUTE=10000000 \
  EARSHOT_MODELS_DIR="$MODELS_DIR" EARSHOT_EMBEDDINGS_FETCH=off \
  EARSHOT_OUTBOUND_ALLOWLIST=127.0.0.1/32 EARSHOT_CHAT_API_URL=http://127.0.0.1:9/api \
  SMTP_URL="smtp://127.0.0.1:$SMTP_PORT?ignoreTLS=true" LOG_LEVEL=warn \
  node --max-semi-space-size=64 bin/earshot.js start >"$DATA/service.log" 2>&1 &
SERVICE_PID=$!

# Ready, and semantic search answering (its 503 while vectors catch up is not a fuzz finding).
for i in $(seq 300); do
  if curl -sf "$URL/readyz" 2>/dev/null | grep -q '"semantic":true'; then break; fi
  if ! kill -0 "$SERVICE_PID" 2>/dev/null || [[ $i == 300 ]]; then
    log "the service did not become ready:"; tail -20 "$DATA/service.log" >&2; exit 2
  fi
  sleep 1
done
log "ready after ${i}s; fuzzing every operation with $EXAMPLES examples each"

rm -rf "$REPORT" && mkdir -p "$REPORT"
# schemathesis exits 1 on any finding, advisory ones included: the verdict decides.
PYTHONPATH=scripts/fuzz "$VENV/bin/st" --config-file scripts/fuzz/schemathesis.toml run "$URL/openapi.json" \
  --header "X-API-Key: $KEY" --checks all --max-examples "$EXAMPLES" --workers 1 \
  ${FUZZ_SEED:+--seed "$FUZZ_SEED"} --no-color --output-truncate true \
  --report ndjson,junit --report-dir "$REPORT" >"$REPORT/run.txt" 2>&1 || true
# The summary without schemathesis' closing "=== N failures in Ns ===" line: that line reads like a
# test runner's verdict to a program scanning the CI log, and verdict.py below gives the real one.
sed -n '/^=* SUMMARY/,$p' "$REPORT/run.txt" | grep -vE '^=+ .* in [0-9.]+s =+$' || true
verdict=0
"$VENV/bin/python" scripts/fuzz/verdict.py "$REPORT" || verdict=$?
if [[ $verdict -ne 0 ]]; then
  log "failed (schemathesis output: $REPORT/run.txt); the service's last errors:"
  grep '"level":50' "$DATA/service.log" | tail -3 | cut -c1-600 >&2 || true
fi
exit "$verdict"
