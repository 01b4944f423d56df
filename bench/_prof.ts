import { Session } from 'node:inspector/promises';
import { writeFileSync } from 'node:fs';
import { benchClearinghouse, setProfileHook } from './clearinghouse.ts';
const s = new Session(); s.connect();
setProfileHook({
  async start() { await s.post('Profiler.enable'); await s.post('Profiler.setSamplingInterval', { interval: 200 }); await s.post('Profiler.start'); },
  async stop() { const { profile } = await s.post('Profiler.stop'); writeFileSync('/tmp/place.cpuprofile', JSON.stringify(profile)); },
});
await benchClearinghouse();
