// The client commands of `svc` (keys, reads, trading, tail) and their dispatch.
export { COMMANDS, runClientCommand } from './commands.ts';
export { describeError } from './context.ts';
export { processIo, type Io } from './io.ts';
