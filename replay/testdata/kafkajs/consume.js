// Consumes WANT records of TOPIC from the beginning with kafkajs, as a
// Node.js service would, and exits 0; exits 1 when the consumer crashes
// (kafkajs has no Snappy codec: "Snappy compression not implemented") or
// times out. Usage: node consume.js BROKERS TOPIC WANT
const path = require('path');
const { Kafka, logLevel } = require(path.join(process.env.EVTOOL_KAFKAJS_DIR, 'kafkajs'));

const [brokers, topic, wantText] = process.argv.slice(2);
const want = Number(wantText);
const kafka = new Kafka({ clientId: 'evtool-interop', brokers: brokers.split(','), logLevel: logLevel.NOTHING, retry: { retries: 1 } });
const consumer = kafka.consumer({ groupId: 'kafkajs-' + topic, retry: { retries: 0 } });
let n = 0;
const fail = (e) => {
  console.error('kafkajs consumer failed after ' + n + ' record(s): ' + (e && e.message ? e.name + ': ' + e.message : e));
  process.exit(1);
};
setTimeout(() => fail('timeout'), 30000);
consumer.on(consumer.events.CRASH, (e) => fail(e.payload.error));
(async () => {
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  await consumer.run({
    eachMessage: async ({ message }) => {
      if (!message.headers || !message.headers.ce_id) {
        fail('record without a ce_id header');
      }
      if (++n === want) {
        console.log('read ' + n + ' records');
        process.exit(0);
      }
    },
  });
})().catch(fail);
