// Confluent's JavaScript serializers (@confluentinc/schemaregistry) with
// kafkajs, against `evtool produce`, `evtool consume` and `evtool registry
// serve`. Modules come from NODE_PATH (the tests set it from
// EVTOOL_TEST_NODE_MODULES); nothing is downloaded.
//
//   node confluent_serde.js consume BROKERS TOPIC N REGISTRY_URL
//     reads N records from the start of TOPIC; each value goes to the
//     Avro, Protobuf or JSON deserializer its content-type header names.
//     Prints one JSON line per record: key, content_type, decoded (the
//     datum as JSON; Protobuf messages with their $typeName) or error.
//   node confluent_serde.js produce BROKERS TOPIC REGISTRY_URL < SPEC
//     SPEC is a JSON array of {"subject", "format": "avro"|"json"|"protobuf",
//     "message", "key", "headers", "data"}: data is serialized under the subject's
//     latest schema (useLatestVersion, no auto-registration) and sent with
//     the headers. A Protobuf datum is built from the registry's serialized
//     descriptor, as generated code would hold it ("message" names its
//     message, default the file's first). Prints {"produced": N}.
const path = require('path')
const { consumeN, send, main, errorText } = require(path.join(__dirname, 'kafkajs_io.js'))
const sr = require('@confluentinc/schemaregistry')
const { SchemaRegistryClient, SerdeType } = sr

const json = (v) => JSON.stringify(v, (k, x) => (typeof x === 'bigint' ? x.toString() : x))

async function consume(brokers, topic, want, url) {
  const client = new SchemaRegistryClient({ baseURLs: [url] })
  const deserializers = {
    'application/avro': new sr.AvroDeserializer(client, SerdeType.VALUE, {}),
    'application/json': new sr.JsonDeserializer(client, SerdeType.VALUE, {}),
    'application/protobuf': new sr.ProtobufDeserializer(client, SerdeType.VALUE, {}),
  }
  await consumeN(brokers, topic, Number(want), async (partition, m) => {
    const contentType = m.headers && m.headers['content-type'] ? m.headers['content-type'].toString() : ''
    const out = { key: m.key ? m.key.toString() : null, content_type: contentType }
    try {
      const d = deserializers[contentType]
      if (!d) throw new Error('no deserializer for content-type ' + JSON.stringify(contentType))
      out.decoded = JSON.parse(json(await d.deserialize(topic, m.value)))
    } catch (e) {
      out.error = errorText(e)
    }
    return out
  })
}

// protobufMessage builds a message of the subject's latest schema from
// its JSON form: the descriptor comes from the registry (format
// serialized), as generated code would carry it.
async function protobufMessage(client, subject, name, data) {
  const { fromBinary, fromJson, createFileRegistry } = require('@bufbuild/protobuf')
  const { FileDescriptorProtoSchema } = require('@bufbuild/protobuf/wkt')
  const meta = await client.getLatestSchemaMetadata(subject, 'serialized')
  const fdp = fromBinary(FileDescriptorProtoSchema, Buffer.from(meta.schema, 'base64'))
  const files = createFileRegistry(fdp, () => undefined)
  const file = files.getFile(fdp.name)
  const desc = name ? file.messages.find((m) => m.name === name) : file.messages[0]
  if (!desc) throw new Error('no message ' + name + ' in ' + fdp.name)
  return { registry: files, msg: fromJson(desc, data) }
}

async function produce(brokers, topic, url) {
  const spec = JSON.parse(require('fs').readFileSync(0, 'utf8'))
  const client = new SchemaRegistryClient({ baseURLs: [url] })
  const messages = []
  for (const item of spec) {
    // evtool's subjects are the type names (its type strategy).
    const conf = { useLatestVersion: true, autoRegisterSchemas: false, subjectNameStrategy: () => item.subject }
    let value
    if (item.format === 'protobuf') {
      const { registry, msg } = await protobufMessage(client, item.subject, item.message, item.data)
      value = await new sr.ProtobufSerializer(client, SerdeType.VALUE, { ...conf, registry }).serialize(topic, msg)
    } else if (item.format === 'avro') {
      value = await new sr.AvroSerializer(client, SerdeType.VALUE, conf).serialize(topic, item.data)
    } else {
      value = await new sr.JsonSerializer(client, SerdeType.VALUE, conf).serialize(topic, item.data)
    }
    messages.push({ key: item.key, value, headers: item.headers })
  }
  await send(brokers, topic, messages)
}

main(consume, produce)
