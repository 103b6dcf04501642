// Drives kafkajs, the CloudEvents JavaScript SDK's Kafka binding and
// @kafkajs/confluent-schema-registry the way a Node.js service uses them,
// against `evtool produce`, `evtool consume` and `evtool registry serve`.
// The modules come from NODE_PATH (the tests set it from
// EVTOOL_TEST_NODE_MODULES); nothing is downloaded.
//
//   node cloudevents_kafka.js consume BROKERS TOPIC N [REGISTRY_URL]
//     reads N records from the start of TOPIC with a kafkajs consumer and
//     prints one JSON line per record: partition, offset, key, headers (as
//     strings), the event Kafka.toEvent made of it (event.toJSON()) or the
//     error it threw. With REGISTRY_URL, a value starting with magic byte 0
//     is first decoded by SchemaRegistry.decode, as an application would,
//     and the decoded datum (JSON) is the data given to Kafka.toEvent; so
//     is the frame in a structured event's data_base64.
//   node cloudevents_kafka.js produce BROKERS TOPIC [REGISTRY_URL] < SPEC
//     SPEC is a JSON array of {"mode": "binary"|"structured", "event": {...},
//     "subject": S}: each event becomes a CloudEvent, then a message by
//     Kafka.binary or Kafka.structured, sent by a kafkajs producer. With
//     "subject", the data is encoded by SchemaRegistry.encode under the
//     latest id of that subject (binary mode). Prints {"produced": N}.
const path = require('path')
const { consumeN, send, main, errorText } = require(path.join(__dirname, 'kafkajs_io.js'))
const { CloudEvent, Kafka } = require('cloudevents')

const registryFor = (url) => {
  if (!url) return null
  const { SchemaRegistry, SchemaType } = require('@kafkajs/confluent-schema-registry')
  // The client compiles JSON Schemas with Ajv's draft-07 class unless
  // given another: the catalog's schemas are 2020-12.
  const Ajv2020 = require('ajv/dist/2020').default
  return new SchemaRegistry({ host: url }, { [SchemaType.JSON]: { ajvInstance: new Ajv2020({ strict: false }) } })
}

const text = (v) => (v === undefined || v === null ? v : Buffer.isBuffer(v) ? v.toString('utf8') : String(v))

async function consume(brokers, topic, want, url) {
  const registry = registryFor(url)
  await consumeN(brokers, topic, Number(want), async (partition, message) => {
    const headers = {}
    for (const [k, v] of Object.entries(message.headers || {})) headers[k] = Array.isArray(v) ? v.map(text) : text(v)
    const out = { partition, offset: Number(message.offset), key: text(message.key), headers }
    try {
      let value = message.value
      if (registry && value && value.length > 0 && value[0] === 0) {
        const datum = await registry.decode(value)
        // protobufjs messages and avsc records become plain JSON here.
        out.decoded = JSON.parse(JSON.stringify(datum))
        value = out.decoded
      }
      const event = Kafka.toEvent({ headers, key: out.key, value })
      out.event = event.toJSON()
      if (registry && event.data_base64) {
        // A structured event's binary data (Avro, Protobuf) is its
        // frame, in data_base64.
        out.decoded = JSON.parse(JSON.stringify(await registry.decode(Buffer.from(event.data_base64, 'base64'))))
      }
    } catch (e) {
      out.error = errorText(e) + (e && e.errors ? ' ' + JSON.stringify(e.errors) : '')
    }
    return out
  })
}

async function produce(brokers, topic, url) {
  const registry = registryFor(url)
  const spec = JSON.parse(require('fs').readFileSync(0, 'utf8'))
  const messages = []
  for (const item of spec) {
    const event = new CloudEvent(item.event)
    const m = item.mode === 'structured' ? Kafka.structured(event) : Kafka.binary(event)
    // The SDK leaves the value as the event's data (an object for JSON)
    // and the headers as the attributes' values: kafkajs wants strings or
    // Buffers, so the application turns them into text.
    const headers = {}
    for (const [k, v] of Object.entries(m.headers)) if (v !== undefined && v !== null) headers[k] = String(v)
    let value = m.value
    if (item.subject) {
      const id = await registry.getLatestSchemaId(item.subject)
      value = await registry.encode(id, event.data)
    } else if (value !== undefined && typeof value !== 'string' && !Buffer.isBuffer(value)) {
      value = JSON.stringify(value)
    }
    messages.push({ key: m.key === undefined ? null : String(m.key), value, headers, timestamp: m.timestamp })
  }
  await send(brokers, topic, messages)
}

main(consume, produce)
