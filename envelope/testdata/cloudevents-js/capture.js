const { CloudEvent, Kafka } = require("cloudevents");
const ce = new CloudEvent({
  specversion: "1.0",
  id: "8f0c6d3e-1b7a-4c1e-9d36-3f2b9a7e5c10",
  source: "/orders",
  type: "com.example.order.created",
  time: "2026-12-01T10:00:00.000Z",
  datacontenttype: "application/json",
  data: { orderId: "A-1", total: 42 },
});
const msg = Kafka.binary(ce);
const headers = {};
for (const [k, v] of Object.entries(msg.headers)) if (v !== undefined) headers[k] = String(v);
const value = typeof msg.body === "string" ? msg.body : JSON.stringify(msg.body);
process.stdout.write(JSON.stringify({ headers, key: msg.key ?? null, value }, null, 2) + "\n");
