"""Serializes one record value with confluent-kafka's JSONSerializer and its
defaults (TopicNameStrategy, auto.register.schemas), which registers the
schema under subject <topic>-value. Prints one JSON line.

Usage: python3 confluent_json_serializer.py URL TOPIC SCHEMA VALUE
"""
import json
import sys

from confluent_kafka.schema_registry import SchemaRegistryClient
from confluent_kafka.schema_registry.json_schema import JSONSerializer
from confluent_kafka.serialization import MessageField, SerializationContext


def main():
    url, topic, schema, value = sys.argv[1:5]
    client = SchemaRegistryClient({"url": url})
    serializer = JSONSerializer(schema, client, to_dict=lambda obj, ctx: obj)
    try:
        data = serializer(json.loads(value), SerializationContext(topic, MessageField.VALUE))
    except Exception as e:  # the registry's refusal arrives as an exception
        print(json.dumps({"error": str(e)}))
        return
    # Confluent wire format: magic byte 0, then the schema id (4 bytes).
    print(json.dumps({"id": int.from_bytes(data[1:5], "big")}))


if __name__ == "__main__":
    main()
