// The node's REST reads from the page (same origin as the page: the REST port).
import type { InfoRequest, InfoType, InfoTypes } from '../../client/types.ts';

export async function info<T extends InfoType>(req: InfoRequest<T>): Promise<InfoTypes[T]['res']> {
  const res = await fetch('/info', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(req) });
  const body = (await res.json()) as InfoTypes[T]['res'] & { message?: string };
  if (!res.ok) throw new Error(body.message ?? `HTTP ${res.status}`);
  return body;
}

export async function get<T>(path: string): Promise<T> {
  const res = await fetch(path);
  const body = (await res.json()) as T & { message?: string };
  if (!res.ok) throw new Error(body.message ?? `HTTP ${res.status}`);
  return body;
}
