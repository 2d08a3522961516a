"""Verdict of a fuzz run from schemathesis's NDJSON report (scripts/fuzz.sh).

Every check runs; every failure fails the run except `positive_data_acceptance` (ST202):
the document cannot state some rules the server enforces (a window's `since` before its
`until`, at most 90 days or 1,000 buckets, a reference that must name an entity of the
right kind), so a schema-valid request may rightly be refused. Those are listed, not failed.
Prints one line per distinct failure: code, operation, status, and a request to reproduce it.
"""

import base64
import json
import sys
from pathlib import Path

ADVISORY = {"ST202"}


def main(report_dir: str) -> int:
    reports = sorted(Path(report_dir).glob("*.ndjson"))
    if not reports:
        print(f"fuzz: no NDJSON report in {report_dir}", file=sys.stderr)
        return 2
    seen: dict[tuple[str, str, int | None], tuple[str, str, str]] = {}
    errors: list[str] = []
    for line in reports[-1].read_text().splitlines():
        event = json.loads(line)
        if "NonFatalError" in event:
            errors.append(json.dumps(event["NonFatalError"])[:300])
        finished = event.get("ScenarioFinished")
        if not finished or finished["status"] != "failure":
            continue
        recorder = finished["recorder"]
        for case_id, checks in recorder.get("checks", {}).items():
            interaction = recorder.get("interactions", {}).get(case_id) or {}
            response = interaction.get("response") or {}
            request = interaction.get("request") or {}
            body = ""
            if response.get("content"):
                try:
                    body = base64.b64decode(response["content"]["$base64"]).decode(errors="replace")
                except (KeyError, ValueError):
                    body = ""
            for check in checks:
                if check["status"] != "failure":
                    continue
                failure = check["failure_info"]["failure"]
                key = (failure["code"], recorder["label"], response.get("status_code"))
                seen.setdefault(
                    key,
                    (failure["title"], f"{request.get('method', '')} {request.get('uri', '')}"[:400], body[:300]),
                )
    failing = {k: v for k, v in seen.items() if k[0] not in ADVISORY}
    for (code, label, status), (title, request, body) in sorted(seen.items(), key=lambda kv: (kv[0][0], kv[0][1])):
        tag = "advisory" if code in ADVISORY else "FAIL"
        print(f"{tag} {code} {title}: {label} -> {status}\n    {request}\n    {body}")
    for error in errors:
        print(f"ERROR {error}")
    print(f"fuzz: {len(failing)} failing finding(s), {len(seen) - len(failing)} advisory, {len(errors)} error(s)")
    return 1 if failing or errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
