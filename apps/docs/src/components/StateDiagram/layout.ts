import type { StateMachineData } from '../../../plugins/contract-data';

/**
 * Where everything of a state diagram goes, computed from the contracts' declaration alone (pure,
 * so the server renders the same SVG the browser shows). One column per state, in declaration
 * order, with its lifeline; one row per allowed move, an arrow from the lifeline of `from` to the
 * lifeline of `to` labelled with its cause (a loop when a state may move to itself). Rows are grouped
 * by the state they leave. No two labels share a row, so none can overlap another.
 */

export const PITCH = 150;
const BOX_WIDTH = 138;
const BOX_TOP = 30;
const NAME_LINE = 15;
const NAME_CHARS = 16; // monospace 12.5px in a 138px box
const ROW = 32;
const LOOP = 34;

export interface Column {
  name: string;
  meaning: string;
  /** Centre of the box and of the lifeline. */
  x: number;
  /** The name split after underscores so that it fits the box. */
  lines: string[];
  /** An instance may start here (the machine's `initial` or one of its `entries`): drawn with a start marker. */
  initial: boolean;
  /** No move leaves it. */
  final: boolean;
}

export interface Row {
  from: string;
  to: string;
  cause: string;
  /** The arrow (a straight line, or a loop on the lifeline). */
  path: string;
  start: { x: number; y: number };
  label: { x: number; y: number; anchor: 'start' | 'middle' | 'end' };
}

export interface Band {
  from: string;
  y: number;
  height: number;
}

export interface DiagramLayout {
  width: number;
  height: number;
  box: { top: number; width: number; height: number };
  lifeline: { top: number; bottom: number };
  columns: Column[];
  bands: Band[];
  rows: Row[];
}

/** Splits `waiting_for_deprovision` into `waiting_for_` and `deprovision` when it is too long for one line. */
export function nameLines(name: string, max = NAME_CHARS): string[] {
  const parts = name.match(/[^_]+_*|_+/g) ?? [name];
  const lines: string[] = [];
  for (const part of parts) {
    const last = lines.length - 1;
    if (last >= 0 && lines[last]!.length + part.length <= max) lines[last] += part;
    else lines.push(part);
  }
  return lines;
}

export function layoutStateDiagram(machine: StateMachineData): DiagramLayout {
  const index = new Map(machine.states.map((s, i) => [s.name, i]));
  const x = (state: string) => PITCH * ((index.get(state) ?? 0) + 0.5);
  const columns: Column[] = machine.states.map((s) => ({
    name: s.name,
    meaning: s.meaning,
    x: x(s.name),
    lines: nameLines(s.name),
    initial: s.name === machine.initial || machine.entries.includes(s.name),
    final: !machine.transitions.some((t) => t.from === s.name),
  }));
  const boxHeight = 14 + NAME_LINE * Math.max(...columns.map((c) => c.lines.length));
  const rowsTop = BOX_TOP + boxHeight + 14;
  const last = machine.states.length - 1;

  const rows: Row[] = [];
  const bands: Band[] = [];
  for (const state of machine.states) {
    const moves = machine.transitions.filter((t) => t.from === state.name);
    if (moves.length === 0) continue;
    const top = rowsTop + rows.length * ROW;
    bands.push({ from: state.name, y: top, height: moves.length * ROW });
    for (const move of moves) {
      const y = rowsTop + rows.length * ROW + ROW / 2 + 6;
      const xf = x(move.from);
      const xt = x(move.to);
      if (move.from === move.to) {
        // A loop to the right of the lifeline; its label beside it (to the left in the last column).
        const lastColumn = index.get(move.from) === last;
        rows.push({
          ...move,
          path: `M ${xf + 4} ${y - 8} C ${xf + LOOP} ${y - 18}, ${xf + LOOP} ${y + 10}, ${xf + 3} ${y + 4}`,
          start: { x: xf, y: y - 8 },
          label: lastColumn
            ? { x: xf - 8, y: y + 4, anchor: 'end' }
            : { x: xf + LOOP + 6, y: y + 4, anchor: 'start' },
        });
      } else {
        const dir = xt > xf ? 1 : -1;
        rows.push({
          ...move,
          path: `M ${xf + dir * 4} ${y} L ${xt - dir * 2} ${y}`,
          start: { x: xf, y },
          label: { x: (xf + xt) / 2, y: y - 7, anchor: 'middle' },
        });
      }
    }
  }
  const height = rowsTop + rows.length * ROW + 8;
  return {
    width: PITCH * machine.states.length,
    height,
    box: { top: BOX_TOP, width: BOX_WIDTH, height: boxHeight },
    lifeline: { top: BOX_TOP + boxHeight, bottom: height - 4 },
    columns,
    bands,
    rows,
  };
}
