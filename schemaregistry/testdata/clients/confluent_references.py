"""Registers an Avro schema that references a shared named type with
confluent-kafka's SchemaRegistryClient (the referenced schema first, under
its full name, as Confluent documents), then reads both back by subject,
by id and by lookup. Prints one JSON object.

Usage: python3 confluent_references.py URL SUBJECT SCHEMA REF_SUBJECT REF_SCHEMA [TYPE]

TYPE is AVRO (the default) or PROTOBUF; a Protobuf reference is named by
its import path, which is also its subject.
"""
import json
import sys

from confluent_kafka.schema_registry import Schema, SchemaReference, SchemaRegistryClient


def refs(schema):
    # Older clients (1.7) keep the references of a response as dicts.
    out = []
    for r in schema.references or []:
        if isinstance(r, dict):
            out.append([r.get("name"), r.get("subject"), r.get("version")])
        else:
            out.append([r.name, r.subject, r.version])
    return out


def main():
    url, subject, schema, ref_subject, ref_schema = sys.argv[1:6]
    kind = sys.argv[6] if len(sys.argv) > 6 else "AVRO"
    client = SchemaRegistryClient({"url": url})
    out = {}
    try:
        out["ref_id"] = client.register_schema(ref_subject, Schema(ref_schema, kind))
        reference = SchemaReference(ref_subject, ref_subject, 1)
        out["id"] = client.register_schema(subject, Schema(schema, kind, [reference]))
        latest = client.get_latest_version(subject)
        out["latest"] = {"version": latest.version, "id": latest.schema_id, "type": latest.schema.schema_type,
                         "schema": latest.schema.schema_str, "references": refs(latest.schema)}
        by_id = client.get_schema(out["id"])
        out["by_id"] = {"type": by_id.schema_type, "references": refs(by_id)}
        found = client.lookup_schema(subject, Schema(schema, kind, [reference]))
        out["lookup"] = {"version": found.version, "id": found.schema_id}
        ref = client.get_version(ref_subject, 1)
        out["ref"] = {"schema": ref.schema.schema_str, "id": ref.schema_id}
    except Exception as e:  # a refusal arrives as an exception
        out["error"] = str(e)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
