import { z } from 'zod';
import { Cents, ClockTime, DisplayName, MenuObjectId, OrderTypeCategory, ServiceType } from '../../hosted.ts';

/**
 * A hosted menu (restaurant-apis.md section 3, Menu API), with the rules of section 5 that one field
 * can check. Rules across fields (nesting depth against `maxModifierLevels`, requirement counts
 * against what is listed, ids that must exist) are `checkMenu` in the platform, run on every create
 * and on every patched menu.
 */

const Text = (max: number) => z.string().max(max, `must be at most ${max} characters`);
const Sequence = z.number().int().min(0).optional().meta({ description: 'Display order, lowest first.' });
/**
 * Whether a percent has at most 3 decimals (8.875): pricing computes on thousandths of a percent, so
 * a finer rate would be rounded there, unseen, and price otherwise than the menu says.
 */
export const inThousandths = (percent: number) =>
  Math.abs(percent * 1000 - Math.round(percent * 1000)) < 1e-6;
const Percent = (what: string) =>
  z
    .number()
    .min(0, `${what} must be 0 to 100`)
    .max(100, `${what} must be 0 to 100`)
    .refine(inThousandths, `${what} has at most 3 decimals, such as 8.875`);

export const DayOfWeek = z
  .enum(['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'])
  .meta({ id: 'DayOfWeek' });
export type DayOfWeek = z.infer<typeof DayOfWeek>;

export const OperationPeriod = z
  .object({
    dayOfWeek: DayOfWeek,
    startTime: ClockTime,
    endTime: ClockTime.meta({
      description: 'An end at or before the start runs past midnight into the next day (`22:00`-`02:00`).',
    }),
  })
  .meta({ id: 'OperationPeriod', description: "Open hours on one weekday, in the store's time zone." });
export type OperationPeriod = z.infer<typeof OperationPeriod>;

export const OrderTypePrice = z
  .object({ orderTypeId: MenuObjectId, price: Cents, halfPrice: Cents.optional() })
  .meta({ id: 'OrderTypePrice', description: 'The price for one order type, instead of `price`.' });

export const TierPrice = z
  .object({
    quantityAndAbove: z.number().int().min(2, 'must be 2 or more'),
    price: Cents,
  })
  .meta({
    id: 'TierPrice',
    description: 'The unit price when a line orders at least `quantityAndAbove` of the item.',
  });

export const PriceInfo = z
  .object({
    price: Cents,
    originalPrice: Cents.optional().meta({
      description: 'The price before a menu-level markdown, shown struck out.',
    }),
    halfPrice: Cents.optional().meta({ description: 'The price of one half of a half-and-half item.' }),
    originalHalfPrice: Cents.optional(),
    orderTypePrices: z.array(OrderTypePrice).optional(),
    tierPrices: z.array(TierPrice).optional(),
  })
  .meta({ id: 'PriceInfo', description: 'Prices in cents.' });
export type PriceInfo = z.infer<typeof PriceInfo>;

export const ModifierPriceInfo = z
  .object({
    price: Cents.meta({ description: 'Per unit of quantity.' }),
    halfPrice: Cents.optional().meta({
      description:
        'On one half of a half-and-half item (`selectedHalf` Left or Right). Default: half of `price`, rounded up.',
    }),
    orderTypePrices: z.array(OrderTypePrice).optional(),
  })
  .meta({ id: 'ModifierPriceInfo' });
export type ModifierPriceInfo = z.infer<typeof ModifierPriceInfo>;

export interface Modifier {
  id: string;
  displayName: string;
  modifierHash?: string | undefined;
  name?: string | undefined;
  stockItemId?: string | undefined;
  isAvailable: boolean;
  sequence?: number | undefined;
  isDefault: boolean;
  allowHalf: boolean;
  allowSide: boolean;
  allowLite: boolean;
  noSubstitutionCredit: number;
  allowModifierCredit: boolean;
  modifierCredit: number;
  minimumQuantity: number;
  maximumQuantity: number;
  modifierpriceInfo?: ModifierPriceInfo | undefined;
  modifiers: ModifierCategory[];
}
export interface ModifierCategory {
  id: string;
  displayName: string;
  name?: string | undefined;
  stockItemId?: string | undefined;
  sequence?: number | undefined;
  allowHalf: boolean;
  minimumModifiers: number;
  maximumModifiers?: number | undefined;
  modifiers: Modifier[];
}

export const Modifier: z.ZodType<Modifier, unknown> = z
  .object({
    id: MenuObjectId,
    displayName: DisplayName,
    modifierHash: Text(64).optional(),
    name: Text(100).optional(),
    stockItemId: Text(25).optional(),
    isAvailable: z.boolean().default(true),
    sequence: Sequence,
    isDefault: z.boolean().default(false).meta({
      description: 'Comes with the item: included in its price up to `minimumQuantity` or 1.',
    }),
    allowHalf: z.boolean().default(false),
    allowSide: z.boolean().default(false),
    allowLite: z.boolean().default(false),
    noSubstitutionCredit: Cents.default(0).meta({
      description: 'Credited when this default modifier is removed and nothing replaces it in its category.',
    }),
    allowModifierCredit: z.boolean().default(false).meta({
      description: "Whether the item's `modifierCredit` may pay for this modifier.",
    }),
    modifierCredit: Cents.default(0).meta({
      description: 'Credit this modifier gives its nested modifiers.',
    }),
    minimumQuantity: z.number().int().min(0, 'must be 0 or 1').max(1, 'must be 0 or 1').default(0),
    maximumQuantity: z.number().int().min(1, 'must be 1 to 100').max(100, 'must be 1 to 100').default(1),
    modifierpriceInfo: ModifierPriceInfo.optional(),
    get modifiers() {
      return z.array(ModifierCategory).default([]).meta({ description: 'Nested modifier categories.' });
    },
  })
  .meta({ id: 'Modifier' });

export const ModifierCategory: z.ZodType<ModifierCategory, unknown> = z
  .object({
    id: MenuObjectId,
    displayName: DisplayName,
    name: Text(100).optional(),
    stockItemId: Text(25).optional(),
    sequence: Sequence,
    allowHalf: z.boolean().default(false),
    minimumModifiers: z.number().int().min(0, 'must be 0 or more').default(0),
    maximumModifiers: z.number().int().min(0, 'must be 0 or more').optional().meta({
      description: 'At most this many modifiers of the category (summed quantities); absent: no limit.',
    }),
    get modifiers() {
      return z.array(Modifier).default([]);
    },
  })
  .meta({ id: 'ModifierCategory', description: 'A choice on an item or a modifier (one nesting level).' });

export const Item = z
  .object({
    id: MenuObjectId,
    displayName: DisplayName,
    name: Text(100).optional(),
    description: Text(1000).optional(),
    stockItemId: Text(25).optional(),
    sequence: Sequence,
    isAvailable: z.boolean().default(true),
    taxType: MenuObjectId.optional().meta({ description: 'The `id` of one of the menu’s `taxTypes`.' }),
    priceInfo: PriceInfo,
    allowHalf: z.boolean().default(false),
    modifierCredit: Cents.default(0).meta({
      description: 'Cents of modifiers (those with `allowModifierCredit`) the item price already includes.',
    }),
    modifiers: z.array(ModifierCategory).default([]),
  })
  .meta({ id: 'MenuItem' });
export type Item = z.infer<typeof Item>;

export const MenuGroup = z
  .object({
    id: MenuObjectId,
    displayName: DisplayName,
    name: Text(100).optional(),
    description: Text(1000).optional(),
    imageId: Text(100).optional(),
    sequence: Sequence,
    items: z.array(Item).default([]),
    operationPeriods: z.array(OperationPeriod).optional().meta({
      description: 'When the group can be ordered; absent: whenever its order type can.',
    }),
  })
  .meta({ id: 'MenuGroup' });
export type MenuGroup = z.infer<typeof MenuGroup>;

export const DeliveryFeeType = z.enum(['Amount', 'Percent', 'None']).meta({ id: 'DeliveryFeeType' });
export const DeliveryOptions = z
  .object({
    deliveryFeeType: DeliveryFeeType,
    displayName: Text(25).optional(),
    deliveryFeeValue: z.number().min(0, 'must be 0 or more').default(0).meta({
      description:
        '`Amount`: cents (a whole number). `Percent`: 0 to 100 (at most 3 decimals), of the subtotal after discounts.',
    }),
    deliveryFeeTaxType: MenuObjectId.optional().meta({ description: 'The tax type the fee is taxed at.' }),
  })
  .meta({ id: 'DeliveryOptions', description: 'The fee a delivery order type adds.' });
export type DeliveryOptions = z.infer<typeof DeliveryOptions>;

export const TaxType = z
  .object({
    id: MenuObjectId,
    displayName: DisplayName,
    taxIncluded: z.boolean().default(false).meta({ description: 'Prices already include this tax.' }),
    isAlcohol: z.boolean().default(false),
    taxRateInfo: z.object({
      taxRate: Percent('taxRate').meta({
        description: 'Percent, 0 to 100, at most 3 decimals (8.875 is 8.875%).',
      }),
      orderTypeTaxes: z
        .array(z.object({ orderTypeId: MenuObjectId, taxRate: Percent('taxRate') }))
        .optional()
        .meta({ description: 'The rate for one order type, instead of `taxRate`.' }),
    }),
  })
  .meta({ id: 'TaxType' });
export type TaxType = z.infer<typeof TaxType>;

export const OrderType = z
  .object({
    id: MenuObjectId,
    orderTypeCategory: OrderTypeCategory,
    displayName: DisplayName,
    isDelivery: z.boolean().default(false),
    deferPrepMinutes: z.number().int().min(0).max(1440).default(30),
    minOrderPrice: Cents.default(0).meta({
      description: 'The least subtotal after discounts this order type takes.',
    }),
    operationPeriods: z.array(OperationPeriod).default([]).meta({
      description: 'When the order type can be ordered for; empty: always.',
    }),
  })
  .meta({ id: 'OrderType' });
export type OrderType = z.infer<typeof OrderType>;

export const DiscountType = z.enum(['AmountOff', 'PercentOff', 'SetPrice', 'AdjustedItem', 'Reward']).meta({
  id: 'DiscountType',
  description:
    '`AmountOff`: `discountValue` cents off once per target; `PercentOff`: `discountValue` percent off; `SetPrice`: the target costs `discountValue` cents; `AdjustedItem`: `discountValue` cents off every unit of each target; `Reward`: the cheapest target unit is free (at most `discountValue` cents when it is above 0).',
});
export type DiscountType = z.infer<typeof DiscountType>;
export const DiscountScope = z.enum(['Order', 'Item', 'Multiple', 'BOGO']).meta({
  id: 'DiscountScope',
  description:
    '`Order`: the subtotal; `Item`: each qualifying line; `Multiple`: the qualifying lines together; `BOGO`: of each two qualifying units, the cheaper one.',
});
export type DiscountScope = z.infer<typeof DiscountScope>;

export const ValidationCode = z
  .object({
    code: z.string().min(1).max(25),
    hasExpireDate: z.boolean().default(false),
    expireDate: z.iso.datetime({ offset: true }).optional(),
    lastUpdateUser: Text(50).optional(),
    lastUpdateDateTime: z.iso.datetime({ offset: true }).optional(),
  })
  .meta({
    id: 'ValidationCode',
    description: 'A code a customer must quote; past `expireDate` it no longer works.',
  });

export const DiscountConditions = z
  .object({
    menuGroups: z.array(MenuObjectId).default([]),
    menuGroupRequirments: z.number().int().min(1).optional().meta({
      description:
        'How many of the listed groups the order must hold an item of (1 to the number listed; default all).',
    }),
    items: z.array(MenuObjectId).default([]),
    itemRequirments: z.number().int().min(1).optional().meta({
      description: 'How many of the listed items the order must hold (1 to the number listed; default 1).',
    }),
    modifiers: z.array(MenuObjectId).default([]),
    modifierRequirments: z.number().int().min(1).optional().meta({
      description:
        'How many of the listed modifiers the order must hold (1 to the number listed; default 1); leave it out when none are listed.',
    }),
  })
  .meta({
    id: 'DiscountConditions',
    description:
      'What the order must hold for the discount to apply. The items of the listed groups and the listed items are its targets (for `Item`, `Multiple`, `BOGO` scopes).',
  });
export type DiscountConditions = z.infer<typeof DiscountConditions>;

export const AvailableDiscount = z
  .object({
    id: MenuObjectId,
    displayName: DisplayName,
    description: Text(1000).optional(),
    isDeal: z.boolean().default(false),
    requireApproval: z.boolean().default(false),
    minimumOrderPrice: Cents.default(0),
    discountScope: DiscountScope,
    limit: z.number().int().min(1).default(1).meta({ description: 'Times it may apply to one order.' }),
    combinable: z
      .boolean()
      .default(true)
      .meta({ description: 'false: no other discount may apply with it.' }),
    validationCodeRequired: z.boolean().default(false),
    validFromDate: z.iso.date().optional(),
    validToDate: z.iso.date().optional().meta({ description: 'Inclusive.' }),
    validWeekdays: z.number().int().min(0).max(127).default(127).meta({
      description:
        'Bit sum: Sunday 1, Monday 2, Tuesday 4, Wednesday 8, Thursday 16, Friday 32, Saturday 64.',
    }),
    startTime: ClockTime.optional().meta({
      description:
        'From when in the day it is offered (store time), with `endTime`: set both or neither (all day); one alone is 422 `menu_invalid`.',
    }),
    endTime: ClockTime.optional().meta({
      description:
        'Until when in the day it is offered (excluded), with `startTime`; an end before the start runs past midnight.',
    }),
    discountType: DiscountType,
    discountValue: z.number().min(0, 'must be 0 or more').meta({
      description: 'Cents, or percent (0 to 100, at most 3 decimals) for `PercentOff`.',
    }),
    conditions: DiscountConditions.default({ menuGroups: [], items: [], modifiers: [] }),
    orderTypes: z
      .array(MenuObjectId)
      .default([])
      .meta({ description: 'Order types it applies to; empty: all.' }),
    validationCodes: z.array(ValidationCode).default([]),
  })
  .meta({ id: 'AvailableDiscount' });
export type AvailableDiscount = z.infer<typeof AvailableDiscount>;

/** How deep a menu may nest modifier categories (section 5), and so how deep an order's modifiers go. */
export const MAX_MODIFIER_LEVELS = 4;

/** What a partner sends to create a menu (no `id`: the platform gives it). */
export const MenuInput = z
  .object({
    displayName: DisplayName,
    maxModifierLevels: z
      .number()
      .int()
      .min(1, `must be 1 to ${MAX_MODIFIER_LEVELS}`)
      .max(MAX_MODIFIER_LEVELS, `must be at most ${MAX_MODIFIER_LEVELS}`)
      .default(MAX_MODIFIER_LEVELS)
      .meta({ description: 'How deep modifier categories may nest (1 to 4).' }),
    serviceTypes: z.array(ServiceType).min(1).default(['None']).meta({
      description: 'The service types this menu serves. `None`: the default menu of every service type.',
    }),
    deliveryOptions: DeliveryOptions.optional(),
    groups: z.array(MenuGroup).default([]),
    taxTypes: z.array(TaxType).default([]),
    orderTypes: z.array(OrderType).default([]),
    availableDiscounts: z.array(AvailableDiscount).default([]),
  })
  .meta({ id: 'MenuInput' });
export type MenuInput = z.infer<typeof MenuInput>;

export const Menu = MenuInput.extend({
  id: z.number().int().meta({ description: "The platform's id of the menu." }),
}).meta({ id: 'Menu', description: "A store's menu; its `displayName` is its name in the URL." });
export type Menu = z.infer<typeof Menu>;

/** The catalog object types (restaurant-apis.md section 9): what a stock item can be. */
export const StockItemType = z.enum(['item_family', 'item', 'modifier']).meta({
  description:
    'The catalog object type of the stock item: `item` or `modifier` (what a hosted menu flags), or `item_family` (a dish whose sizes or variations are out together, from a store whose catalog has families).',
});
export type StockItemType = z.infer<typeof StockItemType>;

export const OutOfStockItem = z
  .object({
    stockItemId: z.string(),
    stockItemType: StockItemType,
  })
  .meta({
    id: 'OutOfStockItem',
    description:
      'A stock item that is out: on a hosted menu, an item or modifier whose `isAvailable` is false, by its `stockItemId` (its `id` when it has none).',
  });
export type OutOfStockItem = z.infer<typeof OutOfStockItem>;
