import { Session } from 'node:inspector/promises';
import { writeFileSync } from 'node:fs';
import { sweepSetup } from './clearinghouse.ts';
const run = sweepSetup();
const s = new Session(); s.connect();
await s.post('Profiler.enable'); await s.post('Profiler.setSamplingInterval', { interval: 100 }); await s.post('Profiler.start');
console.log('sweep ms', run().toFixed(1));
const { profile } = await s.post('Profiler.stop');
writeFileSync('/tmp/prof/sweep.cpuprofile', JSON.stringify(profile));
