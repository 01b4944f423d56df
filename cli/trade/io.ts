// What a client command reads and writes: lines out, lines to stderr, the environment, stdin.
export interface Io {
  readonly out: (line: string) => void;
  readonly err: (line: string) => void;
  readonly env: NodeJS.ProcessEnv;
  /** All of stdin as text (a secret piped in with `-`). */
  readonly stdin: () => Promise<string>;
  /** Asks for a secret on the terminal without echo; null when there is no terminal. */
  readonly prompt: (question: string) => Promise<string | null>;
  /** Resolves when the user asks to stop (Ctrl-C), for `tail`. */
  readonly interrupted: () => Promise<void>;
}

export function processIo(): Io {
  return {
    out: (line) => console.log(line),
    err: (line) => console.error(line),
    env: process.env,
    stdin: async () => {
      const chunks: Buffer[] = [];
      for await (const c of process.stdin) chunks.push(c as Buffer);
      return Buffer.concat(chunks).toString('utf8');
    },
    prompt: (question) => hiddenPrompt(question),
    interrupted: () => new Promise((resolve) => process.once('SIGINT', () => resolve())),
  };
}

/** Reads one line from the terminal with echo off. */
async function hiddenPrompt(question: string): Promise<string | null> {
  const stdin = process.stdin;
  if (!stdin.isTTY) return null;
  process.stderr.write(question);
  stdin.setRawMode(true);
  stdin.resume();
  let text = '';
  try {
    return await new Promise<string>((resolve, reject) => {
      const onData = (buf: Buffer) => {
        for (const ch of buf.toString('utf8')) {
          if (ch === '\r' || ch === '\n') {
            stdin.off('data', onData);
            return resolve(text);
          }
          if (ch === '\u0003') {
            stdin.off('data', onData);
            return reject(new Error('interrupted'));
          }
          if (ch === '\u007f') text = text.slice(0, -1);
          else text += ch;
        }
      };
      stdin.on('data', onData);
    });
  } finally {
    stdin.setRawMode(false);
    stdin.pause();
    process.stderr.write('\n');
  }
}
