// Schema migrations for the PostgreSQL history store: the `.sql` files of a folder, applied in
// name order, each once, each in its own transaction, recorded in `schema_migrations`. An
// advisory lock serializes runners: nodes starting together against one database apply each
// file once and the others wait, then find nothing left to do.
import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type pg from 'pg';

/** The history store's migrations, shipped beside this file. */
export const HISTORY_MIGRATIONS = fileURLToPath(new URL('./migrations/', import.meta.url));

/** pg_advisory_lock key of migration runs ('svc-migr' as 8 bytes). */
export const MIGRATION_LOCK = 0x7376632d6d696772n;

/** Applies the files of `dir` not yet applied; returns their names. */
export async function migrate(client: pg.ClientBase, dir = HISTORY_MIGRATIONS): Promise<string[]> {
  const files = (await readdir(dir)).filter((f) => f.endsWith('.sql')).sort();
  const applied: string[] = [];
  await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK.toString()]);
  try {
    await client.query('CREATE TABLE IF NOT EXISTS schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())');
    const done = new Set((await client.query<{ name: string }>('SELECT name FROM schema_migrations')).rows.map((r) => r.name));
    for (const file of files) {
      if (done.has(file)) continue;
      const sql = await readFile(`${dir}/${file}`, 'utf8');
      await client.query('BEGIN');
      try {
        await client.query(sql);
        await client.query('INSERT INTO schema_migrations (name) VALUES ($1)', [file]);
        await client.query('COMMIT');
      } catch (e) {
        await client.query('ROLLBACK');
        throw new Error(`migration ${file} failed: ${(e as Error).message}`, { cause: e });
      }
      applied.push(file);
    }
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK.toString()]);
  }
  return applied;
}
