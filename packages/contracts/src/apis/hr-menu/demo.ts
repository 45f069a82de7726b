import type { z } from 'zod';
import type { MenuInput } from './menu.ts';

/**
 * The demo company `npm start` seeds (and the references' examples show): one pizza company with two
 * stores sharing a realistic menu. The same object is the CLI's import format
 * (`stream-platform companies import <file>`), so it is also the example of that file.
 */

export const DEMO_STORE_ID = 1001;
export const DEMO_COMPANY_ID = 100;

const everyDay = (startTime: string, endTime: string) =>
  (['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'] as const).map(
    (dayOfWeek) => ({
      dayOfWeek,
      startTime,
      endTime,
    }),
  );

const toppings = {
  id: 'toppings',
  displayName: 'Toppings',
  allowHalf: true,
  minimumModifiers: 0,
  maximumModifiers: 10,
  modifiers: [
    {
      id: 'pepperoni',
      displayName: 'Pepperoni',
      allowHalf: true,
      maximumQuantity: 3,
      allowModifierCredit: true,
      modifierpriceInfo: { price: 150, halfPrice: 90 },
    },
    {
      id: 'mushrooms',
      displayName: 'Mushrooms',
      allowHalf: true,
      allowLite: true,
      maximumQuantity: 3,
      allowModifierCredit: true,
      modifierpriceInfo: { price: 125 },
    },
    {
      id: 'extra-cheese',
      displayName: 'Extra cheese',
      allowHalf: true,
      allowSide: true,
      maximumQuantity: 2,
      modifierpriceInfo: { price: 175 },
    },
    {
      id: 'basil',
      displayName: 'Fresh basil',
      isDefault: true,
      noSubstitutionCredit: 50,
      modifierpriceInfo: { price: 0 },
    },
  ],
};

const crust = {
  id: 'crust',
  displayName: 'Crust',
  minimumModifiers: 1,
  maximumModifiers: 1,
  modifiers: [
    {
      id: 'thin',
      displayName: 'Thin crust',
      isDefault: true,
      minimumQuantity: 0,
      modifierpriceInfo: { price: 0 },
    },
    { id: 'thick', displayName: 'Thick crust', modifierpriceInfo: { price: 200 } },
    {
      id: 'gluten-free',
      displayName: 'Gluten-free crust',
      isAvailable: false,
      modifierpriceInfo: { price: 300 },
    },
  ],
};

export const DEMO_MENU = {
  displayName: 'Main',
  maxModifierLevels: 4,
  serviceTypes: ['None'],
  deliveryOptions: {
    deliveryFeeType: 'Amount',
    displayName: 'Delivery Fee',
    deliveryFeeValue: 399,
    deliveryFeeTaxType: 'food',
  },
  taxTypes: [
    { id: 'food', displayName: 'NY Sales Tax', taxRateInfo: { taxRate: 8.875 } },
    { id: 'alcohol', displayName: 'Alcohol Tax', isAlcohol: true, taxRateInfo: { taxRate: 10 } },
  ],
  orderTypes: [
    {
      id: 'Pickup',
      orderTypeCategory: 'Pickup',
      displayName: 'Pickup',
      deferPrepMinutes: 20,
      operationPeriods: everyDay('10:00', '23:00'),
    },
    {
      id: 'Delivery',
      orderTypeCategory: 'Delivery',
      displayName: 'Delivery',
      isDelivery: true,
      deferPrepMinutes: 45,
      minOrderPrice: 1500,
      operationPeriods: everyDay('11:00', '22:30'),
    },
  ],
  groups: [
    {
      id: 'pizzas',
      displayName: 'Pizzas',
      sequence: 1,
      items: [
        {
          id: 'margherita-lg',
          displayName: 'Margherita, large',
          taxType: 'food',
          allowHalf: true,
          modifierCredit: 150,
          priceInfo: {
            price: 1800,
            halfPrice: 950,
            orderTypePrices: [{ orderTypeId: 'Delivery', price: 1950 }],
          },
          modifiers: [crust, toppings],
        },
        {
          id: 'pepperoni-lg',
          displayName: 'Pepperoni, large',
          taxType: 'food',
          allowHalf: true,
          priceInfo: { price: 2100, halfPrice: 1100 },
          modifiers: [crust, toppings],
        },
        {
          id: 'veggie-lg',
          displayName: 'Garden veggie, large',
          taxType: 'food',
          allowHalf: true,
          priceInfo: { price: 2000, halfPrice: 1050 },
          modifiers: [crust, toppings],
        },
      ],
    },
    {
      id: 'sides',
      displayName: 'Sides',
      sequence: 2,
      items: [
        {
          id: 'garlic-knots',
          displayName: 'Garlic knots (6)',
          taxType: 'food',
          priceInfo: { price: 600, tierPrices: [{ quantityAndAbove: 3, price: 500 }] },
          modifiers: [
            {
              id: 'dips',
              displayName: 'Dips',
              maximumModifiers: 2,
              modifiers: [
                {
                  id: 'marinara',
                  displayName: 'Marinara',
                  maximumQuantity: 4,
                  modifierpriceInfo: { price: 75 },
                },
                { id: 'ranch', displayName: 'Ranch', maximumQuantity: 4, modifierpriceInfo: { price: 75 } },
              ],
            },
          ],
        },
        { id: 'caesar', displayName: 'Caesar salad', taxType: 'food', priceInfo: { price: 950 } },
      ],
    },
    {
      id: 'drinks',
      displayName: 'Drinks',
      sequence: 3,
      items: [
        { id: 'soda', displayName: 'Soda (can)', taxType: 'food', priceInfo: { price: 250 } },
        {
          id: 'lager',
          displayName: 'Lager (12 oz)',
          taxType: 'alcohol',
          priceInfo: { price: 700 },
          stockItemId: 'beer-lager',
        },
      ],
      operationPeriods: everyDay('12:00', '23:00'),
    },
  ],
  availableDiscounts: [
    {
      id: 'weekday-pizza',
      displayName: '20% off pizzas, Monday to Friday',
      discountScope: 'Item',
      discountType: 'PercentOff',
      discountValue: 20,
      validWeekdays: 62,
      conditions: { menuGroups: ['pizzas'] },
    },
    {
      id: 'knots-bogo',
      displayName: 'Buy one garlic knots, get one free',
      discountScope: 'BOGO',
      discountType: 'PercentOff',
      discountValue: 100,
      conditions: { items: ['garlic-knots'] },
    },
    {
      id: 'welcome10',
      displayName: '$10 off orders of $30 or more',
      discountScope: 'Order',
      discountType: 'AmountOff',
      discountValue: 1000,
      minimumOrderPrice: 3000,
      combinable: false,
      validationCodeRequired: true,
      validationCodes: [{ code: 'WELCOME10', hasExpireDate: true, expireDate: '2030-12-31T23:59:59-05:00' }],
    },
    {
      id: 'late-night',
      displayName: 'Late-night soda for $1',
      discountScope: 'Item',
      discountType: 'SetPrice',
      discountValue: 100,
      startTime: '21:00',
      endTime: '02:00',
      conditions: { items: ['soda'] },
    },
  ],
} as const satisfies z.input<typeof MenuInput>;

const address = (street: string, postalcode: string) => ({
  address: street,
  city: 'New York',
  state: 'NY',
  postalcode,
});

/** The import file of the demo company (the CLI's `companies import` format). */
export const DEMO_COMPANY = {
  company: { id: DEMO_COMPANY_ID, name: 'Stream Pizza Co.' },
  stores: [
    {
      id: DEMO_STORE_ID,
      name: 'Stream Pizza Chelsea',
      phoneNumber: '+12125550101',
      email: 'chelsea@pizza.example',
      ...address('250 W 23rd St', '10011'),
      timeZone: 'Eastern Standard Time',
      latitude: 40.7446,
      longitude: -73.9967,
      menus: [DEMO_MENU],
      // An L-shaped (concave) zone around the store that it delivers to.
      geoFences: [
        {
          id: 'Chelsea',
          delivery: true,
          additionalFee: 1.5,
          driverCompensation: 3,
          geoCodes: [
            { sequence: 1, latitude: 40.7505, longitude: -74.0087 },
            { sequence: 2, latitude: 40.7505, longitude: -73.9897 },
            { sequence: 3, latitude: 40.7445, longitude: -73.9897 },
            { sequence: 4, latitude: 40.7445, longitude: -73.999 },
            { sequence: 5, latitude: 40.7385, longitude: -73.999 },
            { sequence: 6, latitude: 40.7385, longitude: -74.0087 },
          ],
        },
      ],
      orderTypes: [
        {
          id: 'Pickup',
          orderTypeCategory: 'Pickup',
          estimatedTime: 20,
          estimatedTimeManager: null,
          estimatedTimeManagerDate: null,
          paymentTypes: [{ id: 'card', paymentTypeCategory: 'CreditCard' }],
          orderChannels: [{ id: 'web', name: 'Website' }],
          operationPeriods: everyDay('10:00', '23:00'),
        },
        {
          id: 'Delivery',
          orderTypeCategory: 'Delivery',
          estimatedTime: 45,
          estimatedTimeManager: null,
          estimatedTimeManagerDate: null,
          serviceTypes: ['DoorDash', 'UberEats'],
          paymentTypes: [{ id: 'card', paymentTypeCategory: 'CreditCard' }],
          orderChannels: [{ id: 'marketplace', name: 'Marketplaces' }],
          operationPeriods: everyDay('11:00', '22:30'),
        },
      ],
      gatewayCredentials: [
        { id: 'primary', accountToken: 'tok_demo_chelsea_4f1c', acceptorId: '3928907', terminalId: '0001' },
      ],
    },
    {
      id: DEMO_STORE_ID + 1,
      name: 'Stream Pizza Williamsburg',
      phoneNumber: '+17185550102',
      email: 'williamsburg@pizza.example',
      ...address('160 N 4th St', '11211'),
      city: 'Brooklyn',
      timeZone: 'Eastern Standard Time',
      latitude: 40.7163,
      longitude: -73.9588,
      menus: [DEMO_MENU],
    },
  ],
} as const;

/**
 * The built-in address file of the embedded default (no GEOCODER_URL): addresses around the demo
 * stores with their coordinates, so delivery metrics work with no network.
 */
export const DEMO_ADDRESSES = [
  { streetNumber: '350', streetName: 'W 24th St', city: 'New York', state: 'NY', postalCode: '10011', latitude: 40.7465, longitude: -73.9988 },
  { streetNumber: '100', streetName: '11th Ave', city: 'New York', state: 'NY', postalCode: '10011', latitude: 40.7461, longitude: -74.0068 },
  // Inside the L's notch: in the box around the zone, not in the zone.
  { streetNumber: '201', streetName: 'W 17th St', city: 'New York', state: 'NY', postalCode: '10011', latitude: 40.7405, longitude: -73.9955 },
  { streetNumber: '20', streetName: 'W 34th St', city: 'New York', state: 'NY', postalCode: '10001', latitude: 40.7484, longitude: -73.9857 },
] as const; // prettier-ignore
