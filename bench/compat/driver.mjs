// Runs every pair of pairs.json through json-schema-diff in this one node
// process and prints one JSON line per pair: the verdict per direction and
// the median time of the runs. BACKWARD (new reads old) is compatible when
// json-schema-diff finds no removals; FORWARD when it finds no additions.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(process.env.JSD_DIR + '/');
const jsd = require('json-schema-diff');
const { pairs, rounds } = JSON.parse(readFileSync(process.argv[2], 'utf8'));

for (const p of pairs) {
  const times = [];
  let out = { name: p.name };
  for (let r = 0; r < rounds; r++) {
    const t0 = process.hrtime.bigint();
    try {
      const d = await jsd.diffSchemas({ sourceSchema: p.old, destinationSchema: p.new });
      out.backward = d.removalsFound ? 'incompatible' : 'compatible';
      out.forward = d.additionsFound ? 'incompatible' : 'compatible';
    } catch (e) {
      out.error = String(e && e.message || e).split('\n')[0].slice(0, 160);
    }
    times.push(Number(process.hrtime.bigint() - t0) / 1e3);
  }
  times.sort((a, b) => a - b);
  out.micros = times[Math.floor(times.length / 2)];
  console.log(JSON.stringify(out));
}
