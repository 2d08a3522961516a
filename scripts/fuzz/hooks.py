"""Schemathesis hooks for the fuzz run (scripts/fuzz.sh).

Webhook connections made during the run must not send traffic anywhere but loopback: the
service runs with EARSHOT_OUTBOUND_ALLOWLIST=127.0.0.1/32, and every `url` the fuzzer would
create a connection with is replaced, just before the request is sent, by a loopback URL on a
port nothing listens on (test deliveries then fail fast with "connection refused"). Only a
value the schema accepts is replaced, so a negative case stays negative. Without this a
generated URL naming a public host would be resolved, and test deliveries sent to it.
"""

import os

import schemathesis

CREATE_WEBHOOK = "/v1/projects/{projectId}/webhooks/connections"
LOOPBACK_URL = os.environ.get("EARSHOT_FUZZ_WEBHOOK_URL", "http://127.0.0.1:9/fuzz-hook")


@schemathesis.hook
def before_call(ctx, case, **kwargs):
    if case.operation.method.upper() != "POST" or case.operation.path != CREATE_WEBHOOK:
        return
    body = case.body
    if isinstance(body, dict) and isinstance(body.get("url"), str) and 1 <= len(body["url"]) <= 2048:
        case.body = {**body, "url": LOOPBACK_URL}
