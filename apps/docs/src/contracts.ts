import data from '@generated/contract-data/default/contracts.json';
import type { ContractData } from '../plugins/contract-data';

/** Error codes, operations, enums and API documents of `@stream/contracts`, generated at build time. */
export const contracts = data as ContractData;
export type ApiDocKey = keyof typeof contracts.apiDocs & string;
