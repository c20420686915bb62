"""Protobuf round trip with Confluent's Python client against charter serve.

Usage: protobuf_roundtrip.py REGISTRY_URL TOPIC

Builds the message class from a FileDescriptorProto (no generated _pb2
module), serializes one message with ProtobufSerializer (which registers
the schema and its import, common.proto, as base64 FileDescriptorProtos),
deserializes it with ProtobufDeserializer and prints one JSON line: the
schema ID the payload carries and the decoded message.
"""
import json
import struct
import sys

from google.protobuf import descriptor_pb2, descriptor_pool, json_format
from google.protobuf import message_factory

from confluent_kafka.schema_registry import SchemaRegistryClient
from confluent_kafka.schema_registry.protobuf import (ProtobufDeserializer,
                                                      ProtobufSerializer)
from confluent_kafka.serialization import MessageField, SerializationContext

F = descriptor_pb2.FieldDescriptorProto


def field(msg, name, number, ftype, type_name=None, label=F.LABEL_OPTIONAL):
    f = msg.field.add(name=name, number=number, type=ftype, label=label)
    if type_name:
        f.type_name = type_name


def files():
    common = descriptor_pb2.FileDescriptorProto(
        name="common.proto", package="acme", syntax="proto3")
    addr = common.message_type.add(name="Address")
    field(addr, "city", 1, F.TYPE_STRING)

    order = descriptor_pb2.FileDescriptorProto(
        name="acme/order.proto", package="acme", syntax="proto3",
        dependency=["common.proto"])
    msg = order.message_type.add(name="Order")
    field(msg, "id", 1, F.TYPE_INT64)
    field(msg, "addr", 2, F.TYPE_MESSAGE, ".acme.Address")
    field(msg, "lines", 3, F.TYPE_STRING, label=F.LABEL_REPEATED)
    return common, order


def main():
    url, topic = sys.argv[1], sys.argv[2]
    pool = descriptor_pool.DescriptorPool()
    common, order = files()
    pool.Add(common)
    pool.Add(order)
    desc = pool.FindMessageTypeByName("acme.Order")
    Order = message_factory.MessageFactory(pool).GetPrototype(desc)

    client = SchemaRegistryClient({"url": url})
    ser = ProtobufSerializer(Order, client)
    de = ProtobufDeserializer(Order)
    ctx = SerializationContext(topic, MessageField.VALUE)

    sent = Order(id=42, lines=["a", "b"])
    sent.addr.city = "Lyon"
    payload = ser(sent, ctx)
    magic, schema_id = struct.unpack(">bI", payload[:5])
    got = de(payload, ctx)
    if got != sent:
        raise SystemExit("round trip changed the message: %s" % got)
    latest = client.get_latest_version(topic + "-value")
    print(json.dumps({
        "magic": magic,
        "id": schema_id,
        "latestVersion": latest.version,
        "message": json_format.MessageToDict(got),
    }))


if __name__ == "__main__":
    main()
