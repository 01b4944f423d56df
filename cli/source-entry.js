// The command line from its TypeScript sources: registers tsx's loader, then loads them. bin/svc.js
// runs this when the CLI's bundle is not current (node/thread-bundle.js), as the worker entries do.
import { register } from 'tsx/esm/api';

register();
export const { main } = await import('./index.ts');
