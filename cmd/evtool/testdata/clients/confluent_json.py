"""Produces and consumes CloudEvents (Kafka binary mode: ce_ headers, the
data in the value) with confluent-kafka's JSON Schema serializer and
deserializer, which write and read the data Confluent-framed: magic byte 0
and the 4-byte schema id before the JSON. Prints one JSON document.

Usage:
  confluent_json.py produce URL BROKER TOPIC TYPE DATASCHEMA SCHEMA VALUES
  confluent_json.py consume BROKER TOPIC SCHEMA COUNT

VALUES is a JSON list of data values.
"""
import json
import sys

from confluent_kafka import Consumer, Producer, TopicPartition, OFFSET_BEGINNING
from confluent_kafka.serialization import MessageField, SerializationContext


def produce(url, broker, topic, typ, dataschema, schema, values):
    from confluent_kafka.schema_registry import SchemaRegistryClient
    from confluent_kafka.schema_registry.json_schema import JSONSerializer
    ser = JSONSerializer(schema, SchemaRegistryClient({"url": url}), lambda v, ctx: v)
    p = Producer({"bootstrap.servers": broker})
    errors = []

    def report(err, msg):
        if err is not None:
            errors.append(str(err))
    for i, v in enumerate(values):
        value = ser(v, SerializationContext(topic, MessageField.VALUE))
        p.produce(topic=topic, key=v.get("orderId"), value=value, on_delivery=report, headers=[
            ("ce_specversion", b"1.0"), ("ce_id", ("py-%d" % i).encode()), ("ce_source", b"/confluent-kafka-python"),
            ("ce_type", typ.encode()), ("ce_dataschema", dataschema.encode()), ("content-type", b"application/json")])
    p.flush(30)
    return {"produced": len(values), "errors": errors}


def consume(broker, topic, schema, count):
    from confluent_kafka.schema_registry.json_schema import JSONDeserializer
    de = JSONDeserializer(schema, lambda v, ctx: v)
    c = Consumer({"bootstrap.servers": broker, "group.id": "py-json", "enable.auto.commit": False})
    c.assign([TopicPartition(topic, 0, OFFSET_BEGINNING)])
    out = []
    misses = 0
    while len(out) < count and misses < 60:
        msg = c.poll(1.0)
        if msg is None:
            misses += 1
            continue
        if msg.error():
            out.append({"error": str(msg.error())})
            continue
        try:
            out.append({"value": de(msg.value(), SerializationContext(topic, MessageField.VALUE))})
        except Exception as e:  # the deserializer refused the value
            out.append({"error": str(e)})
    c.close()
    return {"values": out}


def main():
    cmd, args = sys.argv[1], sys.argv[2:]
    try:
        if cmd == "produce":
            url, broker, topic, typ, dataschema, schema, values = args
            out = produce(url, broker, topic, typ, dataschema, schema, json.loads(values))
        elif cmd == "consume":
            broker, topic, schema, count = args
            out = consume(broker, topic, schema, int(count))
        else:
            out = {"error": "unknown command " + cmd}
    except Exception as e:
        out = {"error": "%s: %s" % (type(e).__name__, e)}
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
