"""Confluent's Python registry client against a Charter registry with
authentication on (HTTP basic, through basic.auth.user.info).

    python3 auth_roundtrip.py URL USER PASSWORD

Prints one line per check and exits 1 on the first mismatch.
"""
import json
import sys

from confluent_kafka.schema_registry import Schema, SchemaRegistryClient
from confluent_kafka.schema_registry.error import SchemaRegistryError

url, user, password = sys.argv[1:4]
schema = Schema(json.dumps({"type": "record", "name": "Ticket", "namespace": "py.auth",
                            "fields": [{"name": "id", "type": "long"}]}), "AVRO")


def client(secret):
    return SchemaRegistryClient({"url": url, "basic.auth.user.info": f"{user}:{secret}"})


def check(what, ok):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        sys.exit(1)


c = client(password)
sid = c.register_schema("py-auth-tickets-value", schema)
check(f"register_schema -> id {sid}", sid > 0)
check("get_schema by id", json.loads(client(password).get_schema(sid).schema_str)["name"] == "Ticket")
latest = client(password).get_latest_version("py-auth-tickets-value")
check(f"get_latest_version -> version {latest.version}", latest.version == 1 and latest.schema_id == sid)
check("get_subjects lists it", "py-auth-tickets-value" in client(password).get_subjects())
try:
    client("wrong password").get_subjects()
    check("a wrong password is refused", False)
except SchemaRegistryError as e:
    check(f"a wrong password is refused with {e.http_status_code}/{e.error_code}", e.http_status_code == 401 and e.error_code == 40101)
