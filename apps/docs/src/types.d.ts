/** Written by plugins/contract-data.ts at build time. */
declare module '@generated/contract-data/default/contracts.json' {
  import type { ContractData } from '../plugins/contract-data';
  const data: ContractData;
  export default data;
}

/** redocusaurus' Redoc component (docusaurus-theme-redoc ships no declaration for the alias). */
declare module '@theme/Redoc' {
  import type { ReactNode } from 'react';
  export default function Redoc(props: {
    spec: object;
    url?: string;
    className?: string;
    optionsOverrides?: Record<string, unknown>;
  }): ReactNode;
}
