/**
 * `npm run bench` (menus): building menu files from a generated catalog of 5,000 items and 20,000
 * modifiers, then one ten times as large, each in v1 and v2: the time of normalising the catalog, of
 * resolving the store's menu (checks and stream_ids included), and of laying out each form, with the
 * heap the build holds, against a bare baseline (a deep copy of the same catalog); the median of several runs after warm-up. The goal (issue 10): under 250 ms for the first, at most 12x that for 10x.
 */
import { performance } from 'node:perf_hooks';
import type { PosCatalog } from '../packages/contracts/src/apis/become-a-pos/catalog.ts';
import { MENU_LIMITS, resolve, toV1, toV2 } from '../apps/platform/src/menus/build.ts';
import { normalizeCatalog } from '../apps/platform/src/menus/catalog.ts';

/** `items` items in families of two sizes, 4 modifiers each in groups of 4 shared by 20 families, 10 per category. */
export function generatedCatalog(items: number): PosCatalog {
  const families = items / 2;
  const modifiers = items * 4;
  const groups = modifiers / 4;
  const usd = { price_currency: 'USD' };
  return {
    menu: [
      {
        provider_id: 'menu-all',
        name: 'All day',
        schedule: { monday: ['08:00-22:00'], friday: ['08:00-23:00'], saturday: ['09:00-23:00'] },
        category_ids: Array.from({ length: families / 10 }, (_, c) => `cat-${c}`),
      },
    ],
    category: Array.from({ length: families / 10 }, (_, c) => ({
      provider_id: `cat-${c}`,
      name: `Category ${c}`,
      item_family_ids: Array.from({ length: 10 }, (_, i) => `fam-${c * 10 + i}`),
    })),
    item_family: Array.from({ length: families }, (_, f) => ({
      provider_id: `fam-${f}`,
      name: `Dish ${f}`,
      description: 'A generated dish with a description of ordinary length.',
      tax_ids: ['tax-1'],
      modifier_group_ids: Array.from({ length: 4 }, (_, g) => `grp-${(f * 4 + g) % groups}`),
    })),
    item: Array.from({ length: items }, (_, i) => ({
      provider_id: `itm-${i}`,
      name: i % 2 ? 'Large' : 'Regular',
      item_family_id: `fam-${Math.floor(i / 2)}`,
      price_amount: 500 + (i % 700),
      ...usd,
      ...(i % 5 === 0
        ? { dsp_price_amount_overrides: [{ dsp: 'doordash' as const, price_amount: 900 }] }
        : {}),
    })),
    modifier_group: Array.from({ length: groups }, (_, g) => ({
      provider_id: `grp-${g}`,
      name: `Choice ${g}`,
      modifier_ids: Array.from({ length: 4 }, (_, m) => `mod-${g * 4 + m}`),
      rules: { selection_type: 'multiple' as const, maximum_unique_modifiers_allowed: 2 },
    })),
    modifier: Array.from({ length: modifiers }, (_, m) => ({
      provider_id: `mod-${m}`,
      name: `Option ${m}`,
      price_amount: m % 3 ? 0 : 75,
      ...usd,
    })),
    tax: [{ provider_id: 'tax-1', name: 'Sales tax', rate: 8.875, is_default: true }],
  };
}

const target = {
  locationId: 'loc_bench',
  posLocationId: 'loc-1',
  platform: 'doordash',
  prepTimeMinutes: 20,
  maxModifierDepth: MENU_LIMITS.maxModifierDepth,
};

function run(items: number) {
  const raw = JSON.parse(JSON.stringify(generatedCatalog(items))) as unknown;
  globalThis.gc?.();
  const heapBefore = process.memoryUsage().heapUsed;
  const t0 = performance.now();
  const { catalog } = normalizeCatalog(raw);
  const t1 = performance.now();
  const resolved = resolve(catalog, target);
  const t2 = performance.now();
  const v1 = toV1(resolved);
  const t3 = performance.now();
  const v2 = toV2(resolved);
  const t4 = performance.now();
  const heap = (process.memoryUsage().heapUsed - heapBefore) / 2 ** 20;
  // The bare baseline: a deep copy of the catalog, the least any transform of every object does.
  const t5 = performance.now();
  structuredClone(raw);
  const copy = performance.now() - t5;
  if (resolved.rejections.length > 0) throw new Error(JSON.stringify(resolved.rejections));
  return {
    items,
    normalize: t1 - t0,
    resolve: t2 - t1,
    v1: t3 - t2,
    v2: t4 - t3,
    totalV1: t3 - t0,
    totalV2: t2 - t0 + (t4 - t3),
    copy,
    heap,
    keep: [v1.menus.length, v2.items.length],
  };
}

const fmt = (ms: number) => ms.toFixed(0).padStart(6);
/** The run of median total time out of `n` (this machine is shared: one run is noise). */
function median(items: number, n: number) {
  const runs = Array.from({ length: n }, () => run(items)).sort((a, b) => a.totalV1 - b.totalV1);
  return runs[Math.floor(n / 2)]!;
}
// Warm the JIT as a running server is warm: the first builds of a process compile the code.
for (let i = 0; i < 3; i++) run(5_000);
const rows = [median(5_000, 7), median(50_000, 3)];
console.log('menus: catalog -> menu file (ms; heap held by the build in MiB)');
console.log('   items  normalize  resolve     v1     v2  total v1  total v2   heap   copy  v1/copy');
for (const r of rows)
  console.log(
    `${String(r.items).padStart(8)} ${fmt(r.normalize)}    ${fmt(r.resolve)} ${fmt(r.v1)} ${fmt(r.v2)}    ${fmt(r.totalV1)}    ${fmt(r.totalV2)} ${r.heap.toFixed(0).padStart(6)} ${fmt(r.copy)}  ${(r.totalV1 / r.copy).toFixed(1).padStart(6)}x`,
  );
const [small, large] = rows as [ReturnType<typeof run>, ReturnType<typeof run>];
console.log(
  `10x the catalog: ${(large.totalV1 / small.totalV1).toFixed(1)}x the time (v1), ${(large.totalV2 / small.totalV2).toFixed(1)}x (v2); goal: 5,000 items under 250 ms, 10x in at most 12x`,
);
