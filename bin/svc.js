#!/usr/bin/env node
// Entry point: TypeScript sources run through tsx's loader, so no build step is needed.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../cli/index.ts');
process.exitCode = await main(process.argv.slice(2));
