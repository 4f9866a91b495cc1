"""Drives the service through the Python client that openapi-python-client generated from /openapi.json.

  python python_roundtrip.py create <base_url> <key>         → {"id", "url"} of a new session
  python python_roundtrip.py finish <base_url> <key> <id>    → get, list, delete, get again (after the session ended)

Prints one JSON object; exits non-zero on an unexpected answer. Imports the generated package
`live_stt_client` from PYTHONPATH.
"""

import json
import sys

from live_stt_client import Client
from live_stt_client.api.live import create_live_session, delete_live_session, get_live_session, list_live_sessions
from live_stt_client.models import LiveSessionInit


def fail(message, response):
    sys.exit(f"{message}: {response.status_code} {response.content[:300]!r}")


def main():
    action, base_url, key = sys.argv[1:4]
    client = Client(base_url=base_url, headers={"x-service-key": key}, raise_on_unexpected_status=True)
    if action == "create":
        body = LiveSessionInit.from_dict({"model": "trantoria-1", "language_config": {"languages": ["en"]}, "custom_metadata": {"client": "python"}})
        response = create_live_session.sync_detailed(client=client, body=body)
        if response.status_code != 201:
            fail("create", response)
        print(json.dumps({"id": str(response.parsed.id), "url": response.parsed.url}))
        return
    session_id = sys.argv[4]
    got = get_live_session.sync_detailed(client=client, id=session_id)
    if got.status_code != 200:
        fail("get", got)
    listed = list_live_sessions.sync_detailed(client=client, limit=100)
    if listed.status_code != 200:
        fail("list", listed)
    deleted = delete_live_session.sync_detailed(client=client, id=session_id)
    if deleted.status_code != 202:
        fail("delete", deleted)
    gone = get_live_session.sync_detailed(client=client, id=session_id)
    print(json.dumps({
        "get": {"id": str(got.parsed.id), "status": str(got.parsed.status.value if hasattr(got.parsed.status, "value") else got.parsed.status), "type": type(got.parsed).__name__},
        "listed": [str(item.id) for item in listed.parsed.items],
        "deleted": deleted.status_code,
        "after_delete": gone.status_code,
        "after_delete_type": type(gone.parsed).__name__,
    }))


main()
