"""schemathesis hooks (`hooks` in the repository's schemathesis.toml; used by conformance/schemathesis.sh).

Two extra checks keep the relaxations of schemathesis.toml to what the contract documents:
- only_documented_rules: a schema-valid (positive) request answered 400 must list, in
  `validation_errors`, only rules from conformance/rules.ts (passed in LIVE_STT_RULES as JSON regexes)
  or members the body sets to a value the contract marks `x-refused` (LIVE_STT_REFUSED: paths and
  values, from conformance/refused.ts); a body setting such a value must be answered 400;
- only_documented_server_errors: a 500 must be the documented `no_inference_endpoint` refusal, a 402
  the documented `insufficient_credits` one.
"""

import json
import os
import re
import subprocess

import schemathesis

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _from_bun(name, script):
    """The value conformance/schemathesis.sh exports, computed here when `st` is run directly."""
    if name in os.environ:
        return json.loads(os.environ[name])
    out = subprocess.run(["bun", "-e", script], cwd=_ROOT, capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


RULES = [re.compile(source) for source in _from_bun("LIVE_STT_RULES", 'import { crossFieldRules } from "./conformance/rules.ts"; console.log(JSON.stringify(crossFieldRules.map((r) => r.line.source)))')]
REFUSED = _from_bun(
    "LIVE_STT_REFUSED",
    'import { buildContract, derefSchema, localDocuments } from "./conformance/contract.ts"; import { refusedPaths } from "./conformance/refused.ts"; const c = buildContract(await localDocuments()); const op = c.operations.find((o) => o.operationId === "createLiveSession"); console.log(JSON.stringify(op?.body ? refusedPaths(op.body.schema, (s) => derefSchema(c, s)) : []))',
)
_MISSING = object()


def _at(value, path):
    for key in path:
        if not isinstance(value, dict) or key not in value:
            return _MISSING
        value = value[key]
    return value


def _refused_in(body):
    """Paths (a.b.c) of the members of an init body set to a value the contract marks x-refused."""
    found = []
    for entry in REFUSED:
        value = _at(body, entry["path"])
        if value is not _MISSING and any(value is v or (type(value) is type(v) and value == v) for v in entry["values"]):
            found.append(".".join(entry["path"]))
    return found


def _body(response):
    try:
        return response.json()
    except Exception:
        return None


@schemathesis.check
def only_documented_rules(ctx, response, case):
    meta = case.meta
    if meta is None or not meta.generation.mode.is_positive:
        return None
    refused = _refused_in(case.body) if case.operation.method.upper() == "POST" and case.operation.path == "/v2/live" else []
    if refused and response.status_code != 400:
        raise AssertionError(f"body switching on {', '.join(refused)} (x-refused in the contract) answered {response.status_code}, documented 400")
    if response.status_code != 400:
        return None
    body = _body(response)
    lines = (body or {}).get("validation_errors") or []
    undocumented = [line for line in lines if not any(rule.search(line) for rule in RULES) and not any(line.startswith(f"{p}: ") for p in refused)]
    if not lines or undocumented:
        raise AssertionError(f"schema-valid request refused by rules the contract does not document: {undocumented or body}")
    return None


@schemathesis.check
def only_documented_server_errors(ctx, response, case):
    expected = {500: "no_inference_endpoint", 402: "insufficient_credits"}.get(response.status_code)
    if expected is None:
        return None
    body = _body(response) or {}
    if body.get("error") != expected:
        raise AssertionError(f"{response.status_code} that is not the documented {expected} refusal: {body}")
    return None
