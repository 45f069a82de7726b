import { inThousandths, type ModifierCategory, type MenuInput } from '@stream/contracts/apis/hr-menu/menu';
import type { ErrorDetail } from '@stream/contracts/errors';
import { MAX_CENTS } from '@stream/contracts/hosted';

/**
 * The Menu API's rules across fields (restaurant-apis.md section 5), on a menu its schema already
 * parsed: nesting within `maxModifierLevels`, discount requirement counts within what is listed,
 * every id a price, tax or discount refers to present, ids unique where orders name them. Pure; one
 * problem per offending field, with its JSON path.
 */
export function checkMenu(menu: MenuInput, prefix = ''): ErrorDetail[] {
  const problems: ErrorDetail[] = [];
  const problem = (path: string, message: string) => problems.push({ path: `${prefix}${path}`, message });

  const orderTypeIds = idsOnce(menu.orderTypes, 'orderTypes', problem);
  const taxTypeIds = idsOnce(menu.taxTypes, 'taxTypes', problem);
  const groupIds = idsOnce(menu.groups, 'groups', problem);
  const items = menu.groups.flatMap((g, gi) =>
    g.items.map((item, ii) => ({ item, path: `groups[${gi}].items[${ii}]` })),
  );
  const itemIds = new Set<string>();
  for (const { item, path } of items) {
    if (itemIds.has(item.id))
      problem(`${path}.id`, `Item id ${item.id} is used twice; item ids are unique in a menu.`);
    itemIds.add(item.id);
  }
  const modifierIds = new Set<string>();
  const knownOrderType = (id: string, path: string) => {
    if (!orderTypeIds.has(id)) problem(path, `No order type ${id} in this menu's orderTypes.`);
  };

  const walk = (categories: ModifierCategory[], path: string, level: number) => {
    if (categories.length > 0 && level > menu.maxModifierLevels) {
      problem(
        path,
        `Modifier categories nest ${level} levels deep here; maxModifierLevels is ${menu.maxModifierLevels}.`,
      );
      return;
    }
    idsOnce(categories, path, problem);
    categories.forEach((c, ci) => {
      const at = `${path}[${ci}]`;
      if (c.maximumModifiers !== undefined && c.minimumModifiers > c.maximumModifiers) {
        problem(
          `${at}.minimumModifiers`,
          `minimumModifiers ${c.minimumModifiers} is above maximumModifiers ${c.maximumModifiers}.`,
        );
      }
      idsOnce(c.modifiers, `${at}.modifiers`, problem);
      c.modifiers.forEach((m, mi) => {
        modifierIds.add(m.id);
        m.modifierpriceInfo?.orderTypePrices?.forEach((p, pi) =>
          knownOrderType(
            p.orderTypeId,
            `${at}.modifiers[${mi}].modifierpriceInfo.orderTypePrices[${pi}].orderTypeId`,
          ),
        );
        walk(m.modifiers, `${at}.modifiers[${mi}].modifiers`, level + 1);
      });
    });
  };

  for (const { item, path } of items) {
    if (item.taxType !== undefined && !taxTypeIds.has(item.taxType)) {
      problem(`${path}.taxType`, `No tax type ${item.taxType} in this menu's taxTypes.`);
    }
    item.priceInfo.orderTypePrices?.forEach((p, pi) =>
      knownOrderType(p.orderTypeId, `${path}.priceInfo.orderTypePrices[${pi}].orderTypeId`),
    );
    walk(item.modifiers, `${path}.modifiers`, 1);
  }
  menu.taxTypes.forEach((t, ti) =>
    t.taxRateInfo.orderTypeTaxes?.forEach((o, oi) =>
      knownOrderType(o.orderTypeId, `taxTypes[${ti}].taxRateInfo.orderTypeTaxes[${oi}].orderTypeId`),
    ),
  );

  const fee = menu.deliveryOptions;
  if (fee) {
    if (fee.deliveryFeeType === 'Percent' && fee.deliveryFeeValue > 100) {
      problem('deliveryOptions.deliveryFeeValue', 'A Percent delivery fee must be 0 to 100.');
    } else if (fee.deliveryFeeType === 'Percent' && !inThousandths(fee.deliveryFeeValue)) {
      problem(
        'deliveryOptions.deliveryFeeValue',
        'A Percent delivery fee has at most 3 decimals, such as 8.875.',
      );
    }
    if (fee.deliveryFeeType === 'Amount' && !isCents(fee.deliveryFeeValue)) {
      problem(
        'deliveryOptions.deliveryFeeValue',
        `An Amount delivery fee is whole cents, 0 to ${MAX_CENTS}.`,
      );
    }
    if (fee.deliveryFeeTaxType !== undefined && !taxTypeIds.has(fee.deliveryFeeTaxType)) {
      problem(
        'deliveryOptions.deliveryFeeTaxType',
        `No tax type ${fee.deliveryFeeTaxType} in this menu's taxTypes.`,
      );
    }
  }

  idsOnce(menu.availableDiscounts, 'availableDiscounts', problem);
  menu.availableDiscounts.forEach((d, di) => {
    const at = `availableDiscounts[${di}]`;
    const c = d.conditions;
    const lists = [
      ['menuGroups', 'menuGroupRequirments', c.menuGroups, c.menuGroupRequirments, groupIds, 'menu group'],
      ['items', 'itemRequirments', c.items, c.itemRequirments, itemIds, 'item'],
      ['modifiers', 'modifierRequirments', c.modifiers, c.modifierRequirments, modifierIds, 'modifier'],
    ] as const;
    for (const [list, count, ids, required, known, what] of lists) {
      ids.forEach((id, i) => {
        if (!known.has(id)) problem(`${at}.conditions.${list}[${i}]`, `No ${what} ${id} in this menu.`);
      });
      if (required !== undefined && ids.length === 0) {
        // Nothing to count: "it must be 1 to 0" would be no help, so say the two ways out.
        problem(
          `${at}.conditions.${count}`,
          `${count} is ${required} but no ${list} are listed: list the ${what}s the order must hold (at least ${required}) in conditions.${list}, or leave ${count} out.`,
        );
      } else if (required !== undefined && required > ids.length) {
        problem(
          `${at}.conditions.${count}`,
          `${count} is ${required} but ${ids.length} ${list} are listed; it must be 1 to ${ids.length}.`,
        );
      }
    }
    d.orderTypes.forEach((id, i) => knownOrderType(id, `${at}.orderTypes[${i}]`));
    if (d.discountType === 'PercentOff' && d.discountValue > 100) {
      problem(`${at}.discountValue`, 'A PercentOff discount is 0 to 100 percent.');
    } else if (d.discountType === 'PercentOff' && !inThousandths(d.discountValue)) {
      problem(`${at}.discountValue`, 'A PercentOff discount has at most 3 decimals, such as 8.875.');
    }
    if (d.discountType !== 'PercentOff' && !isCents(d.discountValue)) {
      problem(`${at}.discountValue`, `A ${d.discountType} discount is whole cents, 0 to ${MAX_CENTS}.`);
    }
    if (d.validFromDate && d.validToDate && d.validFromDate > d.validToDate) {
      problem(
        `${at}.validToDate`,
        `validToDate ${d.validToDate} is before validFromDate ${d.validFromDate}.`,
      );
    }
    // A window needs both ends: pricing reads one end alone as no window, so the discount applied all day.
    if ((d.startTime === undefined) !== (d.endTime === undefined)) {
      const [set, missing] =
        d.startTime !== undefined ? (['startTime', 'endTime'] as const) : (['endTime', 'startTime'] as const);
      problem(
        `${at}.${missing}`,
        `${set} is ${d[set]} but ${missing} is missing: set both to offer the discount between them (an end before the start runs past midnight), or neither to offer it all day.`,
      );
    }
    if (d.validationCodeRequired && d.validationCodes.length === 0) {
      problem(`${at}.validationCodes`, 'validationCodeRequired is true but no validationCodes are listed.');
    }
    d.validationCodes.forEach((v, vi) => {
      if (v.hasExpireDate && !v.expireDate) {
        problem(
          `${at}.validationCodes[${vi}].expireDate`,
          'hasExpireDate is true but expireDate is missing.',
        );
      }
    });
  });
  return problems;
}

/** Money as the menu's prices are (`Cents`): a fee or discount worth more is no amount an order can be paid. */
const isCents = (n: number) => Number.isInteger(n) && n <= MAX_CENTS;

/** The ids of a list, each reported once when repeated. */
function idsOnce(
  list: readonly { id: string }[],
  path: string,
  problem: (path: string, message: string) => void,
): Set<string> {
  const seen = new Set<string>();
  list.forEach((o, i) => {
    if (seen.has(o.id))
      problem(`${path}[${i}].id`, `Id ${o.id} is used twice in ${path.replace(/\[\d+\]/g, '[]')}.`);
    seen.add(o.id);
  });
  return seen;
}
