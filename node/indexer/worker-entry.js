// Worker entry: the worker has no loader of its own, so it registers tsx before the TypeScript.
import { register } from 'tsx/esm/api';

register();
await import('./worker.ts');
