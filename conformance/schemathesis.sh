#!/usr/bin/env bash
# Runs schemathesis (Docker image) against a deployment's /openapi.json, as a second opinion next to
# `bun run conformance`. Needs a Docker engine on the host; the development machines of this project
# have none, so it cannot run there.
set -euo pipefail

usage() {
  cat <<USAGE
usage: conformance/schemathesis.sh --base-url <url> --key <x-service-key> [--max-examples N] [-- extra schemathesis args]

Runs schemathesis/schemathesis:stable against <url>/openapi.json with every check
(not_a_server_error, status_code_conformance, content_type_conformance,
response_schema_conformance, response_headers_conformance, negative_data_rejection,
positive_data_acceptance, use_after_free, ensure_resource_availability, ignored_auth, ...)
and stateful link-based sequences.

Requires a Docker engine (docker run). It cannot run on a host without one (as on the
project's development machines): use 'bun run conformance' there, which covers the same checks
plus the WebSocket and callback contracts.
For a server on the host's loopback, the container uses the host network (--network host).
USAGE
}

BASE_URL=""
KEY=""
MAX_EXAMPLES=100
EXTRA=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --base-url) BASE_URL="$2"; shift 2 ;;
    --key) KEY="$2"; shift 2 ;;
    --max-examples) MAX_EXAMPLES="$2"; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    --) shift; EXTRA=("$@"); break ;;
    *) echo "unknown argument: $1" >&2; usage >&2; exit 2 ;;
  esac
done
if [[ -z "$BASE_URL" || -z "$KEY" ]]; then usage >&2; exit 2; fi
if ! command -v docker >/dev/null 2>&1 || ! docker info >/dev/null 2>&1; then
  echo "schemathesis.sh: no Docker engine on this host; run 'bun run conformance' instead." >&2
  exit 3
fi

exec docker run --rm --network host schemathesis/schemathesis:stable \
  run "${BASE_URL%/}/openapi.json" \
  --url "${BASE_URL%/}" \
  --header "x-service-key: ${KEY}" \
  --checks all \
  --phases examples,coverage,fuzzing,stateful \
  --max-examples "${MAX_EXAMPLES}" \
  "${EXTRA[@]}"
