// The history store a node is configured with: the embedded level store in the data directory,
// or PostgreSQL at a `postgres://` URL.
import { LevelHistoryStore } from './level-store.ts';
import type { HistoryStore } from './store.ts';

export type HistoryStoreConfig = { readonly kind: 'level'; readonly path: string } | { readonly kind: 'postgres'; readonly url: string };

export async function openHistoryStore(config: HistoryStoreConfig): Promise<HistoryStore> {
  // `pg` loads only where it is used: the indexer thread starts with every node.
  const store = config.kind === 'postgres' ? new (await import('./postgres-store.ts')).PostgresHistoryStore(config.url) : new LevelHistoryStore(config.path);
  await store.open();
  return store;
}
