/**
 * A node-link drawing of triples (CONSTRUCT, DESCRIBE): resources are nodes, each triple an edge
 * labelled with its predicate; literals are leaf nodes of their own. Cytoscape is loaded only
 * when a graph is first drawn.
 */
import type { Core, ElementDefinition } from 'cytoscape';
import { clear, el, plural } from './dom.js';
import { termText, type PrefixShortener, type RdfTerm, type Triple } from './rdf-terms.js';

/** Beyond this a force layout is neither fast nor readable. */
export const GRAPH_TRIPLE_LIMIT = 500;

export function graphElements(triples: Triple[], names: PrefixShortener): ElementDefinition[] {
  const nodes = new Map<string, ElementDefinition>();
  const edges: ElementDefinition[] = [];
  const nodeFor = (term: RdfTerm, literalIndex: number): string => {
    const id = term.type === 'literal' ? `literal:${literalIndex}` : `${term.type}:${term.value}`;
    if (!nodes.has(id)) nodes.set(id, { data: { id, label: termText(term, names), kind: term.type } });
    return id;
  };
  triples.slice(0, GRAPH_TRIPLE_LIMIT).forEach(([s, p, o], i) => {
    edges.push({ data: { id: `edge:${i}`, source: nodeFor(s, i), target: nodeFor(o, i), label: termText(p, names) } });
  });
  return [...nodes.values(), ...edges];
}

export class GraphView {
  private graph: Core | undefined;

  constructor(
    private readonly container: HTMLElement,
    private readonly triples: Triple[],
    private readonly names: PrefixShortener,
  ) {}

  async show(): Promise<void> {
    clear(this.container);
    const note =
      this.triples.length > GRAPH_TRIPLE_LIMIT
        ? `The first ${GRAPH_TRIPLE_LIMIT} of ${plural(this.triples.length, 'triple', 'triples')}.`
        : `${plural(this.triples.length, 'triple', 'triples')}. Drag to move, scroll to zoom.`;
    const box = el('div', { className: 'graph-box' });
    this.container.append(el('p', { className: 'note', text: note }), box);
    const { default: cytoscape } = await import('cytoscape');
    this.graph?.destroy();
    this.graph = cytoscape({
      container: box,
      elements: graphElements(this.triples, this.names),
      layout: { name: 'cose', animate: false },
      style: [
        { selector: 'node', style: { label: 'data(label)', 'font-size': 10, 'background-color': '#3366cc', width: 14, height: 14, 'text-valign': 'bottom', 'text-margin-y': 3 } },
        { selector: 'node[kind = "literal"]', style: { shape: 'round-rectangle', 'background-color': '#ff9900' } },
        { selector: 'node[kind = "bnode"]', style: { 'background-color': '#999999' } },
        { selector: 'edge', style: { label: 'data(label)', 'font-size': 8, width: 1, 'curve-style': 'bezier', 'target-arrow-shape': 'triangle', 'line-color': '#aaaaaa', 'target-arrow-color': '#aaaaaa', color: '#555555' } },
      ],
    });
    this.container.dataset['nodes'] = String(this.graph.nodes().length);
    this.container.dataset['edges'] = String(this.graph.edges().length);
  }

  destroy(): void {
    this.graph?.destroy();
  }
}
