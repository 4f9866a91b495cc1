"""schemathesis hooks for conformance/schemathesis.sh (loaded through SCHEMATHESIS_HOOKS).

Two extra checks keep the relaxations of schemathesis.toml to what the contract documents:
- only_documented_rules: a schema-valid (positive) request answered 400 must list, in
  `validation_errors`, only rules from conformance/rules.ts (passed in LIVE_STT_RULES as JSON regexes);
- only_documented_server_errors: a 500 must be the documented `no_inference_endpoint` refusal.
"""

import json
import os
import re

import schemathesis

RULES = [re.compile(source) for source in json.loads(os.environ.get("LIVE_STT_RULES", "[]"))]


def _body(response):
    try:
        return response.json()
    except Exception:
        return None


@schemathesis.check
def only_documented_rules(ctx, response, case):
    meta = case.meta
    if meta is None or not meta.generation.mode.is_positive or response.status_code != 400:
        return None
    body = _body(response)
    lines = (body or {}).get("validation_errors") or []
    undocumented = [line for line in lines if not any(rule.search(line) for rule in RULES)]
    if not lines or undocumented:
        raise AssertionError(f"schema-valid request refused by rules the contract does not document: {undocumented or body}")
    return None


@schemathesis.check
def only_documented_server_errors(ctx, response, case):
    if response.status_code != 500:
        return None
    body = _body(response) or {}
    if body.get("error") != "no_inference_endpoint":
        raise AssertionError(f"500 that is not the documented no_inference_endpoint refusal: {body}")
    return None
