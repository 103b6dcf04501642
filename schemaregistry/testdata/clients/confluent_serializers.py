"""Produces and consumes records with confluent-kafka 1.7's own
serializers: the legacy confluent_kafka.avro AvroProducer and AvroConsumer
(python3-avro; 1.7's AvroSerializer needs fastavro), and the
ProtobufSerializer and ProtobufDeserializer. Records are CloudEvents in
Kafka's binary mode (ce_ headers, the framed data in the value). Protobuf
message classes are built from serialized FileDescriptorProtos (no protoc).
Prints one JSON document.

Usage:
  confluent_serializers.py produce-avro   URL BROKER TOPIC TYPE SCHEMA VALUES
  confluent_serializers.py produce-proto  URL BROKER TOPIC TYPE FILES MESSAGE VALUES
  confluent_serializers.py consume-avro   URL BROKER TOPIC COUNT
  confluent_serializers.py consume-proto  BROKER TOPIC FILES MESSAGE COUNT

FILES is a JSON list of base64 FileDescriptorProtos, each after those it
imports; VALUES a JSON list of values (Protobuf values in the JSON mapping).
"""
import base64
import json
import sys

from confluent_kafka import Consumer, TopicPartition, OFFSET_BEGINNING
from confluent_kafka.serialization import MessageField, SerializationContext


def headers(typ, i, content_type):
    return [("ce_specversion", b"1.0"), ("ce_id", ("py-%d" % i).encode()),
            ("ce_source", b"/confluent-kafka-python"), ("ce_type", typ.encode()),
            ("content-type", content_type.encode())]


def message_class(files, name):
    import importlib
    from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
    pool = descriptor_pool.DescriptorPool()
    added = set()
    for f in files:
        fdp = descriptor_pb2.FileDescriptorProto.FromString(base64.b64decode(f))
        for dep in fdp.dependency:
            # The well-known files come with python3-protobuf, as with protoc.
            if dep.startswith("google/protobuf/") and dep not in added:
                module = importlib.import_module("google.protobuf." + dep.rsplit("/", 1)[1][:-len(".proto")] + "_pb2")
                wk = descriptor_pb2.FileDescriptorProto()
                module.DESCRIPTOR.CopyToProto(wk)
                pool.Add(wk)
                added.add(dep)
        pool.Add(fdp)
    return message_factory.MessageFactory(pool).GetPrototype(pool.FindMessageTypeByName(name))


def delivered(errors):
    def report(err, msg):
        if err is not None:
            errors.append(str(err))
    return report


def produce_avro(url, broker, topic, typ, schema, values):
    from confluent_kafka import avro
    from confluent_kafka.avro import AvroProducer
    p = AvroProducer({"bootstrap.servers": broker, "schema.registry.url": url},
                     default_value_schema=avro.loads(schema))
    errors = []
    for i, v in enumerate(values):
        p.produce(topic=topic, value=v, headers=headers(typ, i, "application/avro"), on_delivery=delivered(errors))
    p.flush(30)
    return {"produced": len(values), "errors": errors}


def produce_proto(url, broker, topic, typ, files, name, values):
    from google.protobuf import json_format
    from confluent_kafka import SerializingProducer
    from confluent_kafka.schema_registry import SchemaRegistryClient
    from confluent_kafka.schema_registry.protobuf import ProtobufSerializer
    cls = message_class(files, name)
    ser = ProtobufSerializer(cls, SchemaRegistryClient({"url": url}))
    p = SerializingProducer({"bootstrap.servers": broker, "value.serializer": ser})
    errors = []
    for i, v in enumerate(values):
        p.produce(topic=topic, value=json_format.ParseDict(v, cls()), headers=headers(typ, i, "application/protobuf"), on_delivery=delivered(errors))
    p.flush(30)
    return {"produced": len(values), "errors": errors}


def consume(consumer, topic, count, decode):
    consumer.assign([TopicPartition(topic, 0, OFFSET_BEGINNING)])
    out = []
    misses = 0
    while len(out) < count and misses < 60:
        try:
            msg = consumer.poll(1.0)
        except Exception as e:  # a deserializer's error
            out.append({"error": str(e)})
            continue
        if msg is None:
            misses += 1
            continue
        if msg.error():
            out.append({"error": str(msg.error())})
            continue
        out.append({"value": decode(msg.value())})
    consumer.close()
    return {"values": out}


def consume_avro(url, broker, topic, count):
    from confluent_kafka.avro import AvroConsumer
    c = AvroConsumer({"bootstrap.servers": broker, "group.id": "py-avro", "schema.registry.url": url,
                      "enable.auto.commit": False})
    return consume(c, topic, count, lambda v: v)


def consume_proto(broker, topic, files, name, count):
    from google.protobuf import json_format
    from confluent_kafka import DeserializingConsumer
    from confluent_kafka.schema_registry.protobuf import ProtobufDeserializer
    cls = message_class(files, name)
    c = DeserializingConsumer({"bootstrap.servers": broker, "group.id": "py-proto", "enable.auto.commit": False,
                               "value.deserializer": ProtobufDeserializer(cls)})
    return consume(c, topic, count, json_format.MessageToDict)


def main():
    cmd, args = sys.argv[1], sys.argv[2:]
    try:
        if cmd == "produce-avro":
            url, broker, topic, typ, schema, values = args
            out = produce_avro(url, broker, topic, typ, schema, json.loads(values))
        elif cmd == "produce-proto":
            url, broker, topic, typ, files, name, values = args
            out = produce_proto(url, broker, topic, typ, json.loads(files), name, json.loads(values))
        elif cmd == "consume-avro":
            url, broker, topic, count = args
            out = consume_avro(url, broker, topic, int(count))
        elif cmd == "consume-proto":
            broker, topic, files, name, count = args
            out = consume_proto(broker, topic, json.loads(files), name, int(count))
        else:
            raise SystemExit("unknown command " + cmd)
    except Exception as e:  # the registry's refusal arrives as an exception
        out = {"error": "%s: %s" % (type(e).__name__, e)}
    print(json.dumps(out, default=str))


if __name__ == "__main__":
    main()
