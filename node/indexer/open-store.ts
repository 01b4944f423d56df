// The history store a node is configured with: the embedded level store in the data directory,
// or PostgreSQL at a `postgres://` URL.
import { LevelHistoryStore } from './level-store.ts';
import type { HistoryStore } from './store.ts';

export type HistoryStoreConfig = { readonly kind: 'level'; readonly path: string } | { readonly kind: 'postgres'; readonly url: string };

export async function openHistoryStore(config: HistoryStoreConfig): Promise<HistoryStore> {
  if (config.kind === 'postgres') throw new Error('the PostgreSQL history store is not available in this build');
  const store = new LevelHistoryStore(config.path);
  await store.open();
  return store;
}
