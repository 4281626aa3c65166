/**
 * A node-link drawing of triples (CONSTRUCT, DESCRIBE): IRIs and blank nodes are nodes, each triple
 * between them an edge labelled with its predicate; literals are written on their subject's node
 * (a few lines under its name), not drawn as nodes of their own. A node can be expanded with its
 * neighbours from the store, and opened in the resource view. Cytoscape is loaded only when a graph
 * is first drawn.
 */
import type { Core, ElementDefinition } from 'cytoscape';
import { button, clear, el, plural } from './dom.js';
import type { Credentials } from './endpoint.js';
import { neighbourTriples } from './neighbours.js';
import { termText, type PrefixShortener, type RdfTerm, type Triple } from './rdf-terms.js';
import { resourceHref } from './resource-address.js';

/** Beyond this many triples a force layout is neither fast nor readable: the rest are left out. */
export const GRAPH_TRIPLE_LIMIT = 500;
/** Literal lines written on one node; the rest are in its resource view. */
const LITERALS_PER_NODE = 3;
/** Neighbours one expansion adds, at most (each way). */
const EXPAND_LIMIT = 50;

export interface GraphSource {
  endpoint: string;
  credentials: () => Credentials | undefined;
}

interface NodeData {
  id: string;
  term: RdfTerm;
  name: string;
  literals: string[];
}

/** Nodes and edges of the triples; literals become lines of their subject's node. */
export class GraphModel {
  readonly nodes = new Map<string, NodeData>();
  readonly edges = new Map<string, { id: string; source: string; target: string; label: string }>();
  triples = 0;

  constructor(private readonly names: PrefixShortener) {}

  /** Adds what is new; answers how many triples were new. */
  add(triples: Triple[]): number {
    let added = 0;
    for (const [s, p, o] of triples) {
      if (this.triples >= GRAPH_TRIPLE_LIMIT) break;
      const subject = this.node(s);
      if (o.type === 'literal') {
        const line = `${termText(p, this.names)}: ${termText(o, this.names)}`;
        if (subject.literals.includes(line)) continue;
        subject.literals.push(line);
      } else {
        const target = this.node(o);
        const id = `${subject.id} ${p.value} ${target.id}`;
        if (this.edges.has(id)) continue;
        this.edges.set(id, { id, source: subject.id, target: target.id, label: termText(p, this.names) });
      }
      this.triples += 1;
      added += 1;
    }
    return added;
  }

  elements(): ElementDefinition[] {
    const nodes = [...this.nodes.values()].map((n) => ({ data: { id: n.id, label: nodeLabel(n), kind: n.term.type } }));
    return [...nodes, ...[...this.edges.values()].map((data) => ({ data }))];
  }

  private node(term: RdfTerm): NodeData {
    const id = `${term.type}:${term.value}`;
    let node = this.nodes.get(id);
    if (node === undefined) {
      node = { id, term, name: termText(term, this.names), literals: [] };
      this.nodes.set(id, node);
    }
    return node;
  }
}

function nodeLabel(node: NodeData): string {
  const cut = (text: string): string => (text.length > 40 ? `${text.slice(0, 39)}…` : text);
  const lines = node.literals.slice(0, LITERALS_PER_NODE).map(cut);
  if (node.literals.length > LITERALS_PER_NODE) lines.push(`+${node.literals.length - LITERALS_PER_NODE} more`);
  return [cut(node.name), ...lines].join('\n');
}

/** The nodes and edges a list of triples draws (literals on their subjects). */
export function graphElements(triples: Triple[], names: PrefixShortener): ElementDefinition[] {
  const model = new GraphModel(names);
  model.add(triples);
  return model.elements();
}

export class GraphView {
  private graph: Core | undefined;
  private readonly model: GraphModel;
  private readonly note = el('p', { className: 'note' });
  private readonly nodeList = el('ul', { className: 'graph-nodes' });

  constructor(
    private readonly container: HTMLElement,
    private readonly triples: Triple[],
    names: PrefixShortener,
    private readonly source: GraphSource,
  ) {
    this.model = new GraphModel(names);
  }

  async show(): Promise<void> {
    clear(this.container);
    this.model.add(this.triples);
    const box = el('div', { className: 'graph-box' });
    const nodes = el('details', { className: 'graph-node-list' }, [el('summary', { text: 'Nodes (open or expand one)' }), this.nodeList]);
    this.container.append(this.note, box, nodes);
    const { default: cytoscape } = await import('cytoscape');
    this.graph?.destroy();
    this.graph = cytoscape({
      container: box,
      elements: this.model.elements(),
      layout: { name: 'cose', animate: false },
      style: [
        {
          selector: 'node',
          style: {
            label: 'data(label)',
            'font-size': 9,
            'background-color': '#3366cc',
            width: 14,
            height: 14,
            'text-valign': 'bottom',
            'text-margin-y': 3,
            'text-wrap': 'wrap',
            'text-max-width': '220px',
            'text-background-color': '#ffffff',
            'text-background-opacity': 0.8,
            'text-background-padding': '1px',
          },
        },
        { selector: 'node[kind = "bnode"]', style: { 'background-color': '#999999' } },
        {
          selector: 'edge',
          style: {
            label: 'data(label)',
            'font-size': 8,
            width: 1,
            'curve-style': 'bezier',
            'target-arrow-shape': 'triangle',
            'line-color': '#aaaaaa',
            'target-arrow-color': '#aaaaaa',
            color: '#555555',
            'text-rotation': 'autorotate',
          },
        },
      ],
    });
    // A double click (or tap) on a node brings its neighbours in.
    this.graph.on('dbltap', 'node', (event) => {
      const node = this.model.nodes.get(event.target.id() as string);
      if (node !== undefined) void this.expand(node);
    });
    this.refresh();
  }

  /** Adds the node's neighbours in the store (both ways) and lays the graph out again. */
  async expand(node: NodeData): Promise<void> {
    if (node.term.type !== 'uri' || this.graph === undefined) return;
    this.note.textContent = `Expanding ${node.name}…`;
    try {
      const triples = await neighbourTriples(this.source.endpoint, node.term.value, EXPAND_LIMIT, this.source.credentials());
      const added = this.model.add(triples);
      this.graph.json({ elements: this.model.elements() });
      this.graph.layout({ name: 'cose', animate: false }).run();
      this.refresh(`${node.name}: ${plural(added, 'triple', 'triples')} added.`);
    } catch (error) {
      this.refresh(`${node.name} could not be expanded: ${(error as Error).message}`);
    }
  }

  private refresh(message = ''): void {
    const full = this.model.triples >= GRAPH_TRIPLE_LIMIT ? ` The graph holds at most ${GRAPH_TRIPLE_LIMIT} triples: the rest are left out.` : '';
    this.note.textContent =
      `${message} ${plural(this.model.nodes.size, 'node', 'nodes')}, ${plural(this.model.triples, 'triple', 'triples')}.${full} Drag to move, scroll to zoom, double-click a node to expand it.`.trim();
    this.container.dataset['nodes'] = String(this.graph?.nodes().length ?? 0);
    this.container.dataset['edges'] = String(this.graph?.edges().length ?? 0);
    this.nodeList.replaceChildren(
      ...[...this.model.nodes.values()].map((node) => {
        const open = el('a', { text: node.name, className: node.term.type === 'uri' ? 'iri' : 'bnode' });
        if (node.term.type === 'uri') open.href = resourceHref({ kind: 'iri', iri: node.term.value });
        const expand = button('Expand', () => void this.expand(node), 'graph-expand');
        expand.disabled = node.term.type !== 'uri';
        expand.setAttribute('aria-label', `Expand ${node.name}`);
        return el('li', { attrs: { 'data-node': node.id } }, [
          open,
          ' ',
          expand,
          ...node.literals.map((line) => el('span', { className: 'graph-literal', text: line })),
        ]);
      }),
    );
  }

  destroy(): void {
    this.graph?.destroy();
  }
}
