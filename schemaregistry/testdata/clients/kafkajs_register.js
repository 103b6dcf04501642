// Registers a JSON Schema through @kafkajs/confluent-schema-registry the way
// an application would: register() with its defaults (compatibility
// BACKWARD, which it PUTs for a subject without its own level), then with
// the catalog's level. Prints one JSON line per step.
// Usage: node kafkajs_register.js URL SUBJECT SCHEMA1 SCHEMA2 LEVEL
const { SchemaRegistry, SchemaType } = require('@kafkajs/confluent-schema-registry')

async function main() {
  const [url, subject, first, second, level] = process.argv.slice(2)
  const registry = new SchemaRegistry({ host: url })
  const step = async (name, schema, opts) => {
    try {
      const { id } = await registry.register({ type: SchemaType.JSON, schema }, { subject, ...opts })
      console.log(JSON.stringify({ step: name, id }))
    } catch (e) {
      console.log(JSON.stringify({ step: name, error: String(e && e.message), status: e && e.status }))
    }
  }
  await step('defaults', first, {})
  await step('catalog level', second, { compatibility: level })
}

main().catch((e) => { console.error(e); process.exit(2) })
