import { text, timestamp, type AnyPgColumn } from 'drizzle-orm/pg-core';

/**
 * Column builders every schema file uses, so each kind of column is spelled (and migrated) one way.
 * Not exported from `index.ts`: it holds no tables.
 */

/** A row's primary key: text, made by `newId` (`db/ids.ts`). */
export const id = () => text('id').primaryKey();

/** Every instant is stored with its time zone. */
export const timestamptz = (name: string) => timestamp(name, { withTimezone: true });

export const createdAt = () => timestamptz('created_at').notNull().defaultNow();
export const updatedAt = () => timestamptz('updated_at').notNull().defaultNow();

/** A required foreign key to another table's text id (optional ones: `text(name).references(...)`). */
export const ref = (name: string, target: () => AnyPgColumn) => text(name).notNull().references(target);
