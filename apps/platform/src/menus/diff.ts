import type { MenuFile } from '@stream/contracts/apis/become-a-dsp/menu-file';
import type { MenuDiff } from '@stream/contracts/apis/partner/menus';
import type { z } from 'zod';

/**
 * What a menu file changes against the one before, object by object (pure): every object carrying a
 * `stream_id`, in either form, compared field by field; a list of child objects compares as their
 * stream_ids (a child's own changes are its own entry).
 */

const KIND_OF: Record<string, string> = {
  cat: 'category',
  ifm: 'item_family',
  itm: 'item',
  mgr: 'modifier_group',
  mod: 'modifier',
  mnu: 'menu',
  tax: 'tax',
};

interface Entry {
  kind: string;
  name: string;
  fields: Map<string, string>;
}

/** JSON with object keys sorted: a file read back from `jsonb` has its keys in another order. */
const canonical = (v: unknown): string =>
  JSON.stringify(v, (_k, x: unknown) =>
    x && typeof x === 'object' && !Array.isArray(x)
      ? Object.fromEntries(Object.entries(x).sort(([a], [b]) => (a < b ? -1 : 1)))
      : x,
  );

const hasStreamId = (v: unknown): v is { stream_id: string } =>
  typeof v === 'object' && v !== null && typeof (v as { stream_id?: unknown }).stream_id === 'string';

/** Every object of the file by stream_id, with its fields as comparable strings. */
export function objectsOf(file: MenuFile): Map<string, Entry> {
  const out = new Map<string, Entry>();
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(visit);
    if (typeof value !== 'object' || value === null) return;
    if (hasStreamId(value) && !out.has(value.stream_id)) {
      const fields = new Map<string, string>();
      for (const [key, v] of Object.entries(value)) {
        const children = Array.isArray(v) && v.length > 0 && v.every(hasStreamId);
        fields.set(key, canonical(children ? v.map((c) => c.stream_id) : v));
      }
      out.set(value.stream_id, {
        kind: KIND_OF[value.stream_id.split('_')[0]!] ?? 'object',
        name: String((value as { name?: unknown }).name ?? ''),
        fields,
      });
    }
    for (const v of Object.values(value)) visit(v);
  };
  visit(file);
  return out;
}

export function diffMenus(before: MenuFile, after: MenuFile): z.infer<typeof MenuDiff> {
  const [old, now] = [objectsOf(before), objectsOf(after)];
  const diff: z.infer<typeof MenuDiff> = { added: [], removed: [], changed: [] };
  for (const [id, e] of now) {
    const was = old.get(id);
    if (!was) {
      diff.added.push({ kind: e.kind, stream_id: id, name: e.name });
      continue;
    }
    const keys = new Set([...was.fields.keys(), ...e.fields.keys()]);
    const fields = [...keys].filter((k) => was.fields.get(k) !== e.fields.get(k));
    if (fields.length > 0) diff.changed.push({ kind: e.kind, stream_id: id, name: e.name, fields });
  }
  for (const [id, e] of old)
    if (!now.has(id)) diff.removed.push({ kind: e.kind, stream_id: id, name: e.name });
  return diff;
}
