import { STATE_MACHINES } from '@stream/contracts/states';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { open, skipBrowserTests, useDocsBrowser } from './browser.ts';
import { guidePages } from './pages.ts';
import { collectedContractData } from './contract-data.ts';
import type { ContractData } from '../plugins/contract-data.ts';
import { layoutStateDiagram } from '../src/components/StateDiagram/layout.ts';

/** Each guide that draws state machines, and the machines it names (`<StateDiagram machine="..." />`). */
const GUIDES = guidePages()
  .map((p) => ({
    route: p.route,
    machines: [...p.source.matchAll(/<StateDiagram\s+machine="([^"]+)"/g)].map((m) => m[1]!),
  }))
  .filter((g) => g.machines.length > 0);

/** What a reader sees in one drawn diagram, read from the rendered SVG's text and geometry. */
interface Drawn {
  machine: string;
  /** The state boxes, left to right, by the name they show. */
  states: string[];
  /** The states the start markers point into. */
  starts: string[];
  /** Each arrow as `from -> to: label`, `from`/`to` being the state columns its two ends touch. */
  moves: string[];
  /** Arrows whose ends are not on a state's lifeline. */
  stray: string[];
  /** The states listed under the diagram with their meaning, if any. */
  meanings: [string, string][];
  /** The legend under the diagram. */
  caption: string;
  width: number;
  height: number;
}

function readDiagrams(page: Page): Promise<Drawn[]> {
  return page.evaluate(() => {
    const centre = (el: SVGGraphicsElement) => {
      const b = el.getBBox();
      return b.x + b.width / 2;
    };
    return Array.from(document.querySelectorAll('figure[data-machine]'), (figure) => {
      const svg = figure.querySelector('svg')!;
      const rect = (g: Element) => g.querySelector('rect') as SVGGraphicsElement;
      const columns = Array.from(svg.querySelectorAll('g[data-state]'), (g) => ({
        name: g.querySelector('text')!.textContent ?? '',
        x: centre(rect(g)),
      }));
      columns.sort((a, b) => a.x - b.x);
      const nearest = (x: number) =>
        columns.reduce((best, c) => (Math.abs(c.x - x) < Math.abs(best.x - x) ? c : best));
      const stray: string[] = [];
      const moves = Array.from(svg.querySelectorAll('g[data-move]'), (g) => {
        const path = g.querySelector('path') as SVGPathElement;
        const length = path.getTotalLength();
        const [start, end] = [path.getPointAtLength(0), path.getPointAtLength(length)];
        const [from, to] = [nearest(start.x), nearest(end.x)];
        const label = g.querySelector('text')!.textContent ?? '';
        // A straight arrow starts and ends on the lifelines; a loop starts and ends beside its own.
        if (Math.abs(start.x - from.x) > 6 || Math.abs(end.x - to.x) > 6) stray.push(label);
        return `${from.name} -> ${to.name}: ${label}`;
      });
      const markers = Array.from(svg.querySelectorAll('[data-initial] line')) as SVGGraphicsElement[];
      const box = svg.getBoundingClientRect();
      return {
        machine: figure.getAttribute('data-machine') ?? '',
        states: columns.map((c) => c.name),
        starts: markers.map((m) => nearest(centre(m)).name),
        moves,
        stray,
        meanings: Array.from(figure.querySelectorAll('dl > div'), (d): [string, string] => [
          d.querySelector('dt')?.textContent ?? '',
          d.querySelector('dd')?.textContent ?? '',
        ]),
        caption: figure.querySelector('figcaption')?.textContent ?? '',
        width: box.width,
        height: box.height,
      };
    });
  });
}

describe('the state machines of the contracts', () => {
  let collected: ContractData;
  beforeAll(async () => {
    collected = await collectedContractData();
  }, 60_000);

  it('are each drawn in at least one guide, and the guides draw no other', () => {
    const drawn = new Set(GUIDES.flatMap((g) => g.machines));
    expect([...drawn].sort()).toEqual(STATE_MACHINES.map((m) => m.name).sort());
  });

  it('reach the site with every state an instance may start in (an order may start scheduled)', () => {
    for (const m of STATE_MACHINES) {
      const data = collected.stateMachines[m.name]!;
      expect(data.initial, m.name).toBe(m.initial);
      expect(data.entries, m.name).toEqual([...m.entries]);
    }
    expect(collected.stateMachines.order!.entries).toEqual(['scheduled']);
  });

  it('are laid out with a start marker on the initial state and on each entry state, and on no other', () => {
    for (const m of STATE_MACHINES) {
      const starts = layoutStateDiagram(collected.stateMachines[m.name]!)
        .columns.filter((c) => c.initial)
        .map((c) => c.name);
      expect(starts.sort(), m.name).toEqual([m.initial, ...m.entries].sort());
    }
  });
});

describe.skipIf(skipBrowserTests)('state diagrams in chromium', () => {
  const docs = useDocsBrowser({ context: {} });

  it.each(GUIDES.map((g) => [g.route, g.machines] as const))(
    '%s shows every state and move of %j as the contracts declare them',
    async (route, machines) => {
      const page = await docs.context.newPage();
      await open(page, route);
      const diagrams = await readDiagrams(page);
      expect(diagrams.map((d) => d.machine)).toEqual(machines);
      for (const d of diagrams) {
        const m = STATE_MACHINES.find((x) => x.name === d.machine)!;
        expect(d.states, d.machine).toEqual(m.states);
        expect(d.starts.sort(), d.machine).toEqual([m.initial, ...m.entries].sort());
        // The legend says there is more than one start marker when there is.
        expect(d.caption, d.machine).toContain(
          m.entries.length > 0
            ? `A dot marks each state a ${m.name} may start in`
            : 'The dot marks the first state',
        );
        expect(d.moves.sort(), d.machine).toEqual(
          m.transitions.map((t) => `${t.from} -> ${t.to}: ${t.cause}`).sort(),
        );
        expect(d.stray, d.machine).toEqual([]);
        if (d.meanings.length > 0) {
          expect(d.meanings, d.machine).toEqual(m.states.map((s) => [s, m.meaning[s]!.replaceAll('`', '')]));
        }
        expect(d.width, d.machine).toBeGreaterThan(400);
        expect(d.height, d.machine).toBeGreaterThan(150);
      }
      await page.close();
      expect(docs.log.errors).toEqual([]);
      expect(docs.log.external).toEqual([]);
    },
  );
});
