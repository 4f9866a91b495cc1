#!/usr/bin/env bash
# Runs schemathesis (PyPI, pinned in scripts/python-tools.txt, in a venv under
# ${LIVE_STT_CACHE:-$HOME/.cache/live-stt}/venv-tools) against a deployment's /openapi.json with every
# check and every phase, next to `bun run conformance`. Relaxations: schemathesis.toml (repository root),
# enforced by conformance/schemathesis_hooks.py; listed in conformance/README.md.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"

usage() {
  cat <<USAGE
usage: conformance/schemathesis.sh --base-url <url> --key <x-service-key> [--max-examples N] [--seed N]
                                   [--junit FILE] [-- extra schemathesis run arguments]

Runs schemathesis against <url>/openapi.json with --checks all (plus the hooks' two checks) and the
phases examples, coverage, fuzzing and stateful; at most N cases per operation and phase (default 100).
Exit code: schemathesis's (0 when nothing failed).
USAGE
}

BASE_URL=""
KEY=""
MAX_EXAMPLES=100
SEED=""
JUNIT=""
EXTRA=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --base-url) BASE_URL="$2"; shift 2 ;;
    --key) KEY="$2"; shift 2 ;;
    --max-examples) MAX_EXAMPLES="$2"; shift 2 ;;
    --seed) SEED="$2"; shift 2 ;;
    --junit) JUNIT="$2"; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    --) shift; EXTRA=("$@"); break ;;
    *) echo "unknown argument: $1" >&2; usage >&2; exit 2 ;;
  esac
done
if [[ -z "$BASE_URL" || -z "$KEY" ]]; then usage >&2; exit 2; fi
BASE_URL="${BASE_URL%/}"

venv="$("$root/scripts/python-tools.sh")"
# The documented cross-field rules, from the same list the Bun suite uses.
LIVE_STT_RULES="$(cd "$root" && bun -e 'import { crossFieldRules } from "./conformance/rules.ts"; console.log(JSON.stringify(crossFieldRules.map((r) => r.line.source)))')"
export LIVE_STT_RULES
# Init-body members the contract marks x-refused (options the service does not run: 400 when switched on).
LIVE_STT_REFUSED="$(cd "$root" && bun -e 'import { buildContract, derefSchema, localDocuments } from "./conformance/contract.ts"; import { refusedPaths } from "./conformance/refused.ts"; const c = buildContract(await localDocuments()); const op = c.operations.find((o) => o.operationId === "createLiveSession"); console.log(JSON.stringify(op?.body ? refusedPaths(op.body.schema, (s) => derefSchema(c, s)) : []))')"
export LIVE_STT_REFUSED
export PYTHONPATH="$root${PYTHONPATH:+:$PYTHONPATH}"
export LIVE_STT_KEY="$KEY"

args=(
  --url "$BASE_URL"
  --header "x-service-key: $KEY"
  --checks all
  --phases examples,coverage,fuzzing,stateful
  --max-examples "$MAX_EXAMPLES"
  # One worker: several threads trip a CPython 3.11 AST recursion-depth race in hypothesis.
  --workers 1
)
[[ -n "$SEED" ]] && args+=(--seed "$SEED")
[[ -n "$JUNIT" ]] && args+=(--report junit --report-junit-path "$JUNIT")
cd "$root"
exec "$venv/bin/schemathesis" --config-file "$root/schemathesis.toml" run "$BASE_URL/openapi.json" "${args[@]}" "${EXTRA[@]}"
