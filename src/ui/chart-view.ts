/**
 * A chart of a result whose columns are a label and numbers: one bar (or line) series per numeric
 * column. Chart.js is loaded only when a chart is first drawn.
 */
import type { Chart } from 'chart.js';
import { button, clear, el } from './dom.js';
import { numericValue, termText, type PrefixShortener, type RdfTerm } from './rdf-terms.js';

export interface ChartData {
  labels: string[];
  series: { name: string; values: (number | null)[] }[];
}

const COLOURS = ['#3366cc', '#dc3912', '#ff9900', '#109618', '#990099', '#0099c6'];

/**
 * The label column is the first column that is not numeric throughout; every column that is numeric
 * (in every row where it is bound) becomes a series. Undefined when there is nothing to chart.
 */
export function chartData(variables: string[], rows: (RdfTerm | undefined)[][], names: PrefixShortener): ChartData | undefined {
  if (rows.length === 0) return undefined;
  const numeric = variables.map(
    (_, i) => rows.every((row) => row[i] === undefined || numericValue(row[i]) !== undefined) && rows.some((row) => row[i] !== undefined),
  );
  const seriesColumns = variables.map((_, i) => i).filter((i) => numeric[i]);
  if (seriesColumns.length === 0) return undefined;
  const labelColumn = numeric.indexOf(false);
  return {
    labels: rows.map((row, r) => (labelColumn < 0 ? String(r + 1) : termText(row[labelColumn], names))),
    series: seriesColumns.filter((i) => i !== labelColumn).map((i) => ({ name: variables[i]!, values: rows.map((row) => numericValue(row[i]) ?? null) })),
  };
}

export class ChartView {
  private chart: Chart | undefined;
  private kind: 'bar' | 'line' = 'bar';

  constructor(
    private readonly container: HTMLElement,
    private readonly data: ChartData,
  ) {}

  async show(): Promise<void> {
    clear(this.container);
    const canvas = el('canvas', { attrs: { role: 'img', 'aria-label': 'Chart of the result' } });
    const switcher = el('div', { className: 'chart-kind' }, [
      button('Bars', () => void this.draw(canvas, 'bar'), 'chart-bar'),
      button('Lines', () => void this.draw(canvas, 'line'), 'chart-line'),
    ]);
    this.container.append(switcher, el('div', { className: 'chart-box' }, [canvas]));
    await this.draw(canvas, this.kind);
  }

  private async draw(canvas: HTMLCanvasElement, kind: 'bar' | 'line'): Promise<void> {
    this.kind = kind;
    const { Chart } = await import('./chart-library.js');
    this.chart?.destroy();
    this.chart = new Chart(canvas, {
      type: kind,
      data: {
        labels: this.data.labels,
        datasets: this.data.series.map((series, i) => ({
          label: series.name,
          data: series.values,
          backgroundColor: COLOURS[i % COLOURS.length],
          borderColor: COLOURS[i % COLOURS.length],
        })),
      },
      options: { responsive: true, maintainAspectRatio: false, animation: false },
    });
    this.container.dataset['chartKind'] = kind;
  }

  destroy(): void {
    this.chart?.destroy();
  }
}
