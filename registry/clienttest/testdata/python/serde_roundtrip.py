"""Confluent's Python client against a Charter registry: the JSON Schema
serializer and deserializer (confluent_kafka.schema_registry.json_schema)
and the Avro serializer of the legacy confluent_kafka.avro API
(CachedSchemaRegistryClient and MessageSerializer), the two Avro-free and
fastavro-free serdes Debian's python3-confluent-kafka 1.7 offers.

    python3 serde_roundtrip.py URL [USER PASSWORD]

With USER and PASSWORD, both clients send HTTP basic credentials
(basic.auth.user.info). Prints one line per check and exits 1 on the
first failure.
"""
import json
import struct
import sys

from confluent_kafka.avro import CachedSchemaRegistryClient
from confluent_kafka.avro import loads as avro_loads
from confluent_kafka.avro.serializer.message_serializer import MessageSerializer
from confluent_kafka.schema_registry import SchemaRegistryClient
from confluent_kafka.schema_registry.json_schema import JSONDeserializer, JSONSerializer
from confluent_kafka.serialization import MessageField, SerializationContext

url = sys.argv[1]
# The new API takes basic.auth.user.info alone; the legacy one also wants
# the credentials source.
auth, legacy_auth = {}, {}
if len(sys.argv) >= 4:
    auth = {"basic.auth.user.info": f"{sys.argv[2]}:{sys.argv[3]}"}
    legacy_auth = {"basic.auth.credentials.source": "USER_INFO", **auth}


def check(what, ok):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        sys.exit(1)


def wire_id(msg):
    check("message starts with the magic byte", msg[0] == 0)
    return struct.unpack(">I", msg[1:5])[0]


# JSON Schema serde: the serializer registers the schema (auto.register),
# validates each object, and frames it with the schema ID.
payment = json.dumps({
    "$schema": "http://json-schema.org/draft-07/schema#", "title": "Payment", "type": "object",
    "properties": {"id": {"type": "integer"}, "amount": {"type": "number"}, "note": {"type": "string"}},
    "required": ["id"],
})
sr = SchemaRegistryClient({"url": url, **auth})
ser = JSONSerializer(payment, sr, to_dict=lambda obj, ctx: obj)
ctx = SerializationContext("py-payments", MessageField.VALUE)
msg = ser({"id": 7, "amount": 12.5, "note": "café ☕"}, ctx)
latest = SchemaRegistryClient({"url": url, **auth}).get_latest_version("py-payments-value")
check(f"JSON: auto-registered py-payments-value as id {latest.schema_id}, type {latest.schema.schema_type}",
      latest.schema.schema_type == "JSON" and wire_id(msg) == latest.schema_id)
back = JSONDeserializer(payment, from_dict=lambda d, ctx: d)(msg, ctx)
check("JSON: deserialized equals the object", back == {"id": 7, "amount": 12.5, "note": "café ☕"})
try:
    ser({"amount": 1}, ctx)
    check("JSON: an object without the required id is refused", False)
except Exception as e:  # SerializationError
    check(f"JSON: an object without the required id is refused ({type(e).__name__})", True)

# Legacy Avro API.
order = avro_loads(json.dumps({
    "type": "record", "name": "Order", "namespace": "py.legacy",
    "fields": [{"name": "id", "type": "long"}, {"name": "customer", "type": "string"}],
}))
legacy = CachedSchemaRegistryClient({"url": url, **legacy_auth})
ms = MessageSerializer(legacy)
msg = ms.encode_record_with_schema("py-legacy-orders", order, {"id": 42, "customer": "Zoë"})
sid = wire_id(msg)
check(f"legacy Avro: encode_record_with_schema registered id {sid}", sid > 0)
fresh = MessageSerializer(CachedSchemaRegistryClient({"url": url, **legacy_auth}))
check("legacy Avro: decode_message reads it back by ID", fresh.decode_message(msg) == {"id": 42, "customer": "Zoë"})
_, _, version = CachedSchemaRegistryClient({"url": url, **legacy_auth}).get_latest_schema("py-legacy-orders-value")
check(f"legacy Avro: get_latest_schema -> version {version}", version == 1)
check("legacy Avro: get_version finds the version",
      CachedSchemaRegistryClient({"url": url, **legacy_auth}).get_version("py-legacy-orders-value", order) == 1)
