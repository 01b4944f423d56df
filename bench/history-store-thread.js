// The history-store bench runs on a thread with the indexer thread's heap limits, as the stores
// do in the node; a worker has no loader of its own, so it registers tsx first.
import { register } from 'tsx/esm/api';

register();
const { runHistoryStoreBench } = await import('./history-store.ts');
await runHistoryStoreBench();
