-- A discount with only one of startTime and endTime was taken before menus were checked for it, and
-- priced as no window (all day). Such a menu now fails every PATCH (422 menu_invalid) until the patch
-- sets or removes the other end: the lone end is removed here, which is what pricing always read.
UPDATE "hosted_menus" SET "menu" = jsonb_set("menu", '{availableDiscounts}', (
  SELECT jsonb_agg(CASE WHEN (d ? 'startTime') <> (d ? 'endTime') THEN d - 'startTime' - 'endTime' ELSE d END ORDER BY i)
  FROM jsonb_array_elements("menu"->'availableDiscounts') WITH ORDINALITY AS e(d, i)
))
WHERE jsonb_typeof("menu"->'availableDiscounts') = 'array'
  AND EXISTS (
    SELECT 1 FROM jsonb_array_elements("menu"->'availableDiscounts') AS e(d) WHERE (d ? 'startTime') <> (d ? 'endTime')
  );
