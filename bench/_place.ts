import { Session } from 'node:inspector/promises';
import { writeFileSync } from 'node:fs';
import { placeSetup } from './clearinghouse.ts';
const run = placeSetup();
const s = new Session(); s.connect();
await s.post('Profiler.enable'); await s.post('Profiler.setSamplingInterval', { interval: 200 }); await s.post('Profiler.start');
console.log('orders/s', run().toFixed(0));
const { profile } = await s.post('Profiler.stop');
writeFileSync('/tmp/prof/place.cpuprofile', JSON.stringify(profile));
