/**
 * Tables and diagrams the guides render from `@stream/contracts` (via the build-time contract data), so error
 * codes, enums, scopes and operations are never retyped in Markdown and follow the code.
 */
import type { ReactNode } from 'react';
import Link from '@docusaurus/Link';
import { contracts } from '@site/src/contracts';
import Diagram from '@site/src/components/StateDiagram';
import { withCode } from '@site/src/components/inline-code';
import type { UnionField } from '../../../plugins/contract-data';

function fail(message: string): never {
  // Thrown during the build (server rendering), so a guide naming a missing contract fails it.
  throw new Error(`ContractTables: ${message}`);
}

function operation(operationId: string) {
  return contracts.operations[operationId] ?? fail(`no operation "${operationId}" in @stream/contracts`);
}

/** The reference page and Redoc anchor of an operation. */
export function referenceUrl(operationId: string): string {
  const op = operation(operationId);
  const doc = contracts.apiDocs[op.api] ?? fail(`no API document "${op.api}"`);
  const tag = (op.tags[0] ?? 'default').replace(/\s+/g, '-');
  return `${doc.route}#tag/${tag}/operation/${operationId}`;
}

/** `POST /oauth/token`, linked to its reference entry. */
export function Endpoint({ operation: operationId }: { operation: string }): ReactNode {
  const op = operation(operationId);
  return (
    <Link to={referenceUrl(operationId)}>
      <code>
        {op.method} {op.path}
      </code>
    </Link>
  );
}

/** Every error code an operation can answer: status, code, meaning. */
export function ErrorTable({ operation: operationId }: { operation: string }): ReactNode {
  const op = operation(operationId);
  return <ErrorCodes codes={op.errors} hosted={contracts.apiDocs[op.api]?.envelope === 'hosted'} />;
}

/**
 * Some error codes of `ERROR_CODES` (for behaviour shared by several endpoints): status, code,
 * meaning. `hosted`: the code is where the hosted APIs' envelope puts it.
 */
export function ErrorCodes({
  codes,
  hosted = false,
}: {
  codes: readonly string[];
  hosted?: boolean;
}): ReactNode {
  const rows = codes
    .map((code) => ({ code, ...(contracts.errors[code] ?? fail(`unknown error code "${code}"`)) }))
    .sort((a, b) => a.status - b.status || a.code.localeCompare(b.code));
  return (
    <table className="contract-table">
      <thead>
        <tr>
          <th>Status</th>
          <th>
            <code>{hosted ? 'messagesDetails[0].id' : 'error.code'}</code>
          </th>
          <th>Meaning</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr key={row.code}>
            <td>{row.status}</td>
            <td>
              <code>{row.code}</code>
            </td>
            <td>{row.description}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** The values of an enum of the contracts (by its schema id), with its description. */
export function EnumTable({ name, caption }: { name: string; caption?: string }): ReactNode {
  const e = contracts.enums[name] ?? fail(`no enum "${name}" in @stream/contracts`);
  return (
    <table className="contract-table">
      {(caption ?? e.description) && <caption>{caption ?? e.description}</caption>}
      <thead>
        <tr>
          <th>Value</th>
        </tr>
      </thead>
      <tbody>
        {e.values.map((value) => (
          <tr key={value}>
            <td>
              <code>{value}</code>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** Each Partner API scope and the operations that require it. */
export function ScopeTable(): ReactNode {
  const scopes = (contracts.enums.Scope ?? fail('no Scope enum')).values;
  const ops = Object.entries(contracts.operations);
  // A bearer endpoint without a scope takes any token of the partner: listed too, so the table is whole.
  const anyToken = ops.filter(
    ([, op]) => op.servedBy === 'platform' && op.security === 'bearer' && op.scopes.length === 0,
  );
  const endpoints = (users: typeof ops) =>
    users.map(([id], i) => (
      <span key={id}>
        {i > 0 && ', '}
        <Endpoint operation={id} />
      </span>
    ));
  return (
    <table className="contract-table">
      <thead>
        <tr>
          <th>Scope</th>
          <th>Required by</th>
        </tr>
      </thead>
      <tbody>
        {scopes.map((scope) => {
          const users = ops.filter(([, op]) => op.scopes.includes(scope));
          return (
            <tr key={scope}>
              <td>
                <code>{scope}</code>
              </td>
              <td>{users.length === 0 ? 'No endpoint yet.' : endpoints(users)}</td>
            </tr>
          );
        })}
        {anyToken.length > 0 && (
          <tr>
            <td>None: any token of yours</td>
            <td>{endpoints(anyToken)}</td>
          </tr>
        )}
      </tbody>
    </table>
  );
}

/** The operations of one API document, optionally only those the partner or the platform serves. */
export function OperationTable({
  api,
  servedBy,
}: {
  api: string;
  servedBy?: 'platform' | 'partner';
}): ReactNode {
  if (!contracts.apiDocs[api]) fail(`no API document "${api}"`);
  const rows = Object.entries(contracts.operations).filter(
    ([, op]) => op.api === api && (servedBy === undefined || op.servedBy === servedBy),
  );
  if (rows.length === 0) return <p>None yet.</p>;
  return (
    <table className="contract-table">
      <thead>
        <tr>
          <th>Endpoint</th>
          <th>What it does</th>
        </tr>
      </thead>
      <tbody>
        {rows.map(([id, op]) => (
          <tr key={id}>
            <td>
              <Endpoint operation={id} />
            </td>
            <td>{op.summary}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function machine(name: string) {
  return (
    contracts.stateMachines[name] ?? fail(`no state machine "${name}" in STATE_MACHINES of @stream/contracts`)
  );
}

/**
 * A state machine of the contracts drawn as a diagram: its states and the moves the platform allows,
 * each labelled with its cause (anything else answers 409 `invalid_transition`), then what each state
 * means unless `meanings={false}`.
 */
export function StateDiagram({
  machine: name,
  meanings,
}: {
  machine: string;
  meanings?: boolean;
}): ReactNode {
  return <Diagram name={name} machine={machine(name)} meanings={meanings} />;
}

/** A dotted name (`location.order.notify_status_change`) that may wrap after each dot in a narrow column. */
function dotted(name: string): ReactNode[] {
  return name.split('.').map((part, i) => (
    <span key={i}>
      {i > 0 && (
        <>
          .<wbr />
        </>
      )}
      {part}
    </span>
  ));
}

/** One field of a message: `status` (`a` | `b`), `order` (DspOrder), `until_ms?`; `prefix` left out of its path. */
function Field({ field, prefix }: { field: UnionField; prefix: string }): ReactNode {
  const path = field.path === prefix.slice(0, -1) ? '' : field.path.slice(prefix.length);
  return (
    <>
      {path && (
        <code>
          {dotted(path)}
          {field.optional ? '?' : ''}
        </code>
      )}
      {field.values && (
        <>
          {': '}
          {field.values.map((v, i) => (
            <span key={v}>
              {i > 0 && ' | '}
              <code>{v}</code>
            </span>
          ))}
        </>
      )}
      {field.ref && <> ({field.ref})</>}
      {field.fields !== undefined && (path ? <> ({field.fields} fields)</> : <>{field.fields} fields</>)}
    </>
  );
}

/**
 * The members of a discriminated union of the contracts (the webhooks and events told apart by `type`):
 * each value of the discriminator, its fields (`?` when optional) and what it means. When every member
 * wraps its fields in one object (the POS's `{type, object}`), the column names it once.
 */
export function UnionTable({ name }: { name: string }): ReactNode {
  const union = contracts.unions[name] ?? fail(`no discriminated union "${name}" in @stream/contracts`);
  const paths = union.members.flatMap((m) => m.fields.map((f) => f.path));
  const wrapper = /^[^.]+/.exec(paths[0] ?? '')?.[0];
  const prefix =
    wrapper && paths.every((p) => p === wrapper || p.startsWith(`${wrapper}.`)) ? `${wrapper}.` : '';
  return (
    <table className="contract-table" data-union={name}>
      {union.description && <caption>{withCode(union.description)}</caption>}
      <thead>
        <tr>
          <th>
            <code>{union.discriminator}</code>
          </th>
          <th>
            {prefix ? (
              <>
                Fields of <code>{prefix.slice(0, -1)}</code>
              </>
            ) : (
              'Fields'
            )}
          </th>
          <th>Meaning</th>
        </tr>
      </thead>
      <tbody>
        {union.members.map((m) => (
          <tr key={m.value}>
            <td>
              <code>{dotted(m.value)}</code>
            </td>
            <td>
              {m.fields.map((f, i) => (
                <span key={f.path}>
                  {i > 0 && <br />}
                  <Field field={f} prefix={prefix} />
                </span>
              ))}
            </td>
            <td>{m.description ? withCode(m.description) : null}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** The 24 menu publish failure codes and when each occurs (`MENU_FAILURE_CODES` of the contracts). */
export function MenuFailureCodeTable(): ReactNode {
  return (
    <table className="contract-table" data-menu-failure-codes>
      <thead>
        <tr>
          <th>
            <code>failure_code</code>
          </th>
          <th>When</th>
        </tr>
      </thead>
      <tbody>
        {Object.entries(contracts.menuFailureCodes).map(([code, when]) => (
          <tr key={code}>
            <td>
              <code>{code}</code>
            </td>
            <td>{withCode(when)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
