/**
 * A state machine of `@stream/contracts` drawn as an SVG at build time (no script, nothing fetched):
 * one column per state, one arrow per allowed move, labelled with its cause. See ./layout.ts.
 */
import { useId, type ReactNode } from 'react';
import type { StateMachineData } from '../../../plugins/contract-data';
import { withCode } from '../inline-code';
import { layoutStateDiagram } from './layout';
import styles from './styles.module.css';

export default function StateDiagram({
  name,
  machine,
  meanings = true,
}: {
  name: string;
  machine: StateMachineData;
  /** List each state's meaning under the diagram (off where the guide has its own table). */
  meanings?: boolean;
}): ReactNode {
  const id = `sd${useId().replace(/[^A-Za-z0-9_-]/g, '')}`;
  const l = layoutStateDiagram(machine);
  const banded = new Set(l.bands.filter((_, i) => i % 2 === 0).map((b) => b.from));
  const title = `The states of a ${name} and the moves between them`;
  return (
    <figure className={styles.figure} data-machine={name}>
      <div className={styles.scroll}>
        <svg
          className={styles.svg}
          viewBox={`0 0 ${l.width} ${l.height}`}
          style={{ maxWidth: l.width }}
          role="img"
          aria-labelledby={`${id}-title ${id}-desc`}
        >
          <title id={`${id}-title`}>{title}</title>
          <desc id={`${id}-desc`}>
            {machine.transitions.map((t) => `${t.from} becomes ${t.to}: ${t.cause}.`).join(' ')}
          </desc>
          <defs>
            <marker
              id={`${id}-head`}
              viewBox="0 0 10 10"
              refX="9"
              refY="5"
              markerWidth="7"
              markerHeight="7"
              orient="auto-start-reverse"
            >
              <path className={styles.head} d="M 0 0 L 10 5 L 0 10 z" />
            </marker>
          </defs>
          {l.bands
            .filter((b) => banded.has(b.from))
            .map((b) => (
              <rect key={b.from} className={styles.band} x={0} y={b.y} width={l.width} height={b.height} />
            ))}
          {l.columns.map((c) => (
            <line
              key={c.name}
              className={styles.lifeline}
              x1={c.x}
              x2={c.x}
              y1={l.lifeline.top}
              y2={l.lifeline.bottom}
            />
          ))}
          {l.columns.map((c) => {
            const left = c.x - l.box.width / 2;
            const firstLine = l.box.top + l.box.height / 2 - ((c.lines.length - 1) * 15) / 2 + 4;
            return (
              <g key={c.name} data-state={c.name}>
                <title>{`${c.name}: ${c.meaning.replaceAll('`', '')}`}</title>
                {c.initial && (
                  <g data-initial="">
                    <circle className={styles.dot} cx={c.x} cy={7} r={5} />
                    <line
                      className={styles.arrow}
                      x1={c.x}
                      y1={12}
                      x2={c.x}
                      y2={l.box.top - 1}
                      markerEnd={`url(#${id}-head)`}
                    />
                  </g>
                )}
                <rect
                  className={styles.box}
                  x={left}
                  y={l.box.top}
                  width={l.box.width}
                  height={l.box.height}
                  rx={8}
                />
                {c.final && (
                  <rect
                    className={styles.final}
                    data-final=""
                    x={left + 4}
                    y={l.box.top + 4}
                    width={l.box.width - 8}
                    height={l.box.height - 8}
                    rx={5}
                  />
                )}
                <text className={styles.name} textAnchor="middle">
                  {c.lines.map((line, i) => (
                    <tspan key={line} x={c.x} y={firstLine + i * 15}>
                      {line}
                    </tspan>
                  ))}
                </text>
              </g>
            );
          })}
          {l.rows.map((r) => (
            <g key={`${r.from}>${r.to}`} data-move="">
              <title>{`${r.from} → ${r.to}: ${r.cause}`}</title>
              <circle className={styles.dot} cx={r.start.x} cy={r.start.y} r={3} />
              <path className={styles.arrow} d={r.path} markerEnd={`url(#${id}-head)`} />
              <text
                className={styles.cause}
                style={banded.has(r.from) ? { stroke: 'var(--ifm-color-emphasis-100)' } : undefined}
                x={r.label.x}
                y={r.label.y}
                textAnchor={r.label.anchor}
              >
                {r.cause}
              </text>
            </g>
          ))}
        </svg>
      </div>
      <figcaption className={styles.caption}>
        Each arrow is a move the platform allows, labelled with what causes it; any other move answers 409{' '}
        <code>invalid_transition</code>.{' '}
        {machine.entries.length > 0
          ? `A dot marks each state a ${name} may start in`
          : 'The dot marks the first state'}
        {l.columns.some((c) => c.final) ? '; a double border, a final one' : ''}.
      </figcaption>
      {meanings && (
        <dl className={styles.meanings}>
          {l.columns.map((c) => (
            <div key={c.name}>
              <dt>
                <code>{c.name}</code>
              </dt>
              <dd>{withCode(c.meaning)}</dd>
            </div>
          ))}
        </dl>
      )}
    </figure>
  );
}
