// Leveled logs (`--log-level`, `--log-json`): plain lines as before, or one JSON object per line.
// The node's existing `log(line)` calls are info; failures are error, diagnostics debug.

export const LOG_LEVELS = ['error', 'warn', 'info', 'debug'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface Logger {
  error(msg: string): void;
  warn(msg: string): void;
  info(msg: string): void;
  debug(msg: string): void;
  enabled(level: LogLevel): boolean;
}

export interface LoggerOptions {
  readonly level: LogLevel;
  readonly json: boolean;
  /** Where lines go; default stdout. */
  readonly write?: (line: string) => void;
  readonly now?: () => number;
}

export function isLogLevel(v: string): v is LogLevel {
  return (LOG_LEVELS as readonly string[]).includes(v);
}

export function createLogger(opts: LoggerOptions): Logger {
  const write = opts.write ?? ((line: string) => void process.stdout.write(`${line}\n`));
  const now = opts.now ?? Date.now;
  const max = LOG_LEVELS.indexOf(opts.level);
  const at = (level: LogLevel) => {
    if (LOG_LEVELS.indexOf(level) > max) return () => {};
    if (opts.json) return (msg: string) => write(JSON.stringify({ time: new Date(now()).toISOString(), level, msg }));
    // Plain: info lines exactly as the node always printed them; the others marked.
    return level === 'info' ? (msg: string) => write(msg) : (msg: string) => write(`${level.toUpperCase()} ${msg}`);
  };
  return {
    error: at('error'),
    warn: at('warn'),
    info: at('info'),
    debug: at('debug'),
    enabled: (level) => LOG_LEVELS.indexOf(level) <= max,
  };
}
