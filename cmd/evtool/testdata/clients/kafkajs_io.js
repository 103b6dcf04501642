// kafkajs plumbing shared by cloudevents_kafka.js and confluent_serde.js:
// read the first N records of a topic, send messages, run a command.
const { Kafka: KafkaJS, logLevel, Partitioners } = require('kafkajs')

const client = (brokers) => new KafkaJS({ clientId: 'evtool-clients', brokers: brokers.split(','), logLevel: logLevel.NOTHING })

// errorText is an error as one line: its name and message.
const errorText = (e) => (e && e.name ? e.name + ': ' : '') + (e && e.message ? e.message : String(e))

// consumeN reads want records from the start of topic with a consumer
// group of its own, prints what handle returns for each as a JSON line,
// and exits 1 when the consumer crashes or a minute passes first.
async function consumeN(brokers, topic, want, handle) {
  const consumer = client(brokers).consumer({ groupId: 'evtool-clients-' + topic + '-' + process.pid })
  const fail = (e) => {
    console.error('kafkajs consumer: ' + (e && e.stack ? e.stack : e))
    process.exit(1)
  }
  const timer = setTimeout(() => fail('timeout: fewer than ' + want + ' records'), 60000)
  consumer.on(consumer.events.CRASH, (e) => fail(e.payload.error))
  let n = 0
  await consumer.connect()
  await consumer.subscribe({ topic, fromBeginning: true })
  await new Promise((resolve) => {
    consumer.run({
      eachMessage: async ({ partition, message }) => {
        console.log(JSON.stringify(await handle(partition, message)))
        if (++n === want) resolve()
      },
    }).catch(fail)
  })
  clearTimeout(timer)
  await consumer.disconnect()
}

// send produces messages to topic and prints {"produced": N}.
async function send(brokers, topic, messages) {
  const producer = client(brokers).producer({ createPartitioner: Partitioners.DefaultPartitioner })
  await producer.connect()
  await producer.send({ topic, messages })
  await producer.disconnect()
  console.log(JSON.stringify({ produced: messages.length }))
}

// main runs consume(brokers, topic, ...rest) or produce(...) as argv says
// and exits 0, or 2 with the error.
function main(consume, produce) {
  const [command, brokers, topic, ...rest] = process.argv.slice(2)
  const run = command === 'consume' ? consume(brokers, topic, ...rest) : command === 'produce' ? produce(brokers, topic, ...rest) : Promise.reject(new Error('usage: consume|produce BROKERS TOPIC ...'))
  run.then(() => process.exit(0), (e) => {
    console.error(e && e.stack ? e.stack : e)
    process.exit(2)
  })
}

module.exports = { consumeN, send, main, errorText }
