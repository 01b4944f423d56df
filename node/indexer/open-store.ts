// The history store a node is configured with: the embedded level store in the data directory,
// or PostgreSQL at a `postgres://` URL.
import { LevelHistoryStore } from './level-store.ts';
import { PostgresHistoryStore } from './postgres-store.ts';
import type { HistoryStore } from './store.ts';

export type HistoryStoreConfig = { readonly kind: 'level'; readonly path: string } | { readonly kind: 'postgres'; readonly url: string };

export async function openHistoryStore(config: HistoryStoreConfig): Promise<HistoryStore> {
  const store = config.kind === 'postgres' ? new PostgresHistoryStore(config.url) : new LevelHistoryStore(config.path);
  await store.open();
  return store;
}
