// explorer/: the explorer page served by the node at `/` on the REST port. Its sources are bundled
// here with esbuild from npm packages (no CDN: a validator's network may reach nothing outside),
// once, on first request; nothing generated is kept in the repository.
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface Asset {
  readonly type: string;
  readonly body: Uint8Array;
}

const PAGE = join(dirname(fileURLToPath(import.meta.url)), 'page');

/** The page's files by URL path: `/`, `/explorer/explorer.js`, `/explorer/explorer.css`. */
export async function buildExplorer(): Promise<Map<string, Asset>> {
  const { build } = await import('esbuild');
  const js = await build({
    entryPoints: [join(PAGE, 'main.ts')],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    legalComments: 'none',
    // The client's WebSocket falls back to the `ws` package in Node only; browsers have their own.
    external: ['ws'],
    logLevel: 'silent',
  });
  const [html, css] = await Promise.all([readFile(join(PAGE, 'index.html')), readFile(join(PAGE, 'style.css'))]);
  return new Map<string, Asset>([
    ['/', { type: 'text/html; charset=utf-8', body: html }],
    ['/explorer/explorer.js', { type: 'text/javascript; charset=utf-8', body: (js.outputFiles[0] as { contents: Uint8Array }).contents }],
    ['/explorer/explorer.css', { type: 'text/css; charset=utf-8', body: css }],
  ]);
}

/** Where the page finds the node's WebSockets: the API's (path /ws) and the JSON-RPC's (new heads). */
export interface ExplorerConfig {
  readonly wsPort: number | null;
  readonly rpcPort: number | null;
}

/**
 * The page's assets, built on first use and kept (the build is about 0.2 to 0.5 s), plus its
 * `config.json` (`ExplorerConfig`).
 */
export function explorerAssets(config: () => ExplorerConfig): { get(path: string): Promise<Asset | null> } {
  let built: Promise<Map<string, Asset>> | null = null;
  return {
    async get(path) {
      if (path === '/explorer/config.json') return { type: 'application/json', body: Buffer.from(JSON.stringify(config())) };
      built ??= buildExplorer().catch((err: unknown) => {
        built = null; // a failed build is tried again on the next request
        throw err;
      });
      return (await built).get(path) ?? null;
    },
  };
}
