/** SPARQL Query Results XML: a whole document, or incrementally as it arrives. */
import type { SolutionRow, Term } from '../rdf/index.js';
import { blankNode, namedNode } from '../rdf/index.js';
import { ResultsFormatError, literalOf, tripleTermOf, type IncrementalReader, type ParsedResults, type ResultsEvent } from './results-reading.js';

// ---------------------------------------------------------------------------------------------
// XML

export function parseXmlResults(text: string): ParsedResults {
  const root = parseXml(text);
  if (root.name !== 'sparql') throw new ResultsFormatError(`SPARQL XML results: root element is <${root.name}>`);
  const head = childElement(root, 'head');
  const variables = head ? childElements(head, 'variable').map((v) => requiredAttribute(v, 'name')) : [];
  const booleanElement = childElement(root, 'boolean');
  if (booleanElement) return { kind: 'boolean', value: xmlBoolean(textOf(booleanElement)) };
  const results = childElement(root, 'results');
  if (!results) throw new ResultsFormatError('SPARQL XML results: neither <results> nor <boolean>');
  const columnOf = new Map(variables.map((name, index) => [name, index]));
  const rows = childElements(results, 'result').map((result) => xmlRow(result, columnOf));
  return { kind: 'bindings', variables, rows };
}

function xmlRow(result: XmlElement, columnOf: Map<string, number>): SolutionRow {
  const row: SolutionRow = new Array(columnOf.size).fill(undefined);
  for (const binding of childElements(result, 'binding')) {
    const name = requiredAttribute(binding, 'name');
    const column = columnOf.get(name);
    if (column === undefined) throw new ResultsFormatError(`SPARQL XML results: binding of undeclared ?${name}`);
    const termElement = binding.children.find(isElement);
    if (!termElement) throw new ResultsFormatError(`SPARQL XML results: empty binding of ?${name}`);
    row[column] = xmlTerm(termElement);
  }
  return row;
}

function xmlBoolean(text: string): boolean {
  const value = text.trim();
  if (value === 'true' || value === '1') return true;
  if (value === 'false' || value === '0') return false;
  throw new ResultsFormatError(`SPARQL XML results: ${JSON.stringify(value)} is not a boolean`);
}

function xmlTerm(element: XmlElement): Term {
  switch (element.name) {
    case 'uri':
      return namedNode(textOf(element).trim());
    case 'bnode':
      return blankNode(textOf(element).trim());
    case 'literal':
      return literalOf(textOf(element), element.attributes.get('xml:lang'), element.attributes.get('datatype'), element.attributes.get('its:dir'));
    case 'triple': {
      const part = (name: string) => {
        const term = childElement(element, name)?.children.find(isElement);
        if (!term) throw new ResultsFormatError(`SPARQL XML results: <triple> without <${name}>`);
        return xmlTerm(term);
      };
      return tripleTermOf(part('subject'), part('predicate'), part('object'), 'XML');
    }
    default:
      throw new ResultsFormatError(`SPARQL XML results: unknown term element <${element.name}>`);
  }
}

function requiredAttribute(element: XmlElement, name: string): string {
  const value = element.attributes.get(name);
  if (value === undefined) throw new ResultsFormatError(`SPARQL XML results: <${element.name}> without ${name}=`);
  return value;
}

/**
 * Just enough XML for results documents: elements, attributes, text, CDATA, character and the
 * five predefined entity references; comments, processing instructions and DOCTYPE are skipped.
 * Element names lose their namespace prefix (results never mix vocabularies); attribute names
 * keep theirs, so `xml:lang` stays `xml:lang`.
 */
interface XmlElement {
  name: string;
  attributes: Map<string, string>;
  children: (XmlElement | string)[];
}

function isElement(node: XmlElement | string): node is XmlElement {
  return typeof node !== 'string';
}

function childElements(parent: XmlElement, name: string): XmlElement[] {
  return parent.children.filter((c): c is XmlElement => isElement(c) && c.name === name);
}

function childElement(parent: XmlElement, name: string): XmlElement | undefined {
  return childElements(parent, name)[0];
}

function textOf(element: XmlElement): string {
  return element.children.map((c) => (typeof c === 'string' ? c : textOf(c))).join('');
}

const ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[a-zA-Z]+);/g, (match, ref: string) => {
    if (ref[0] === '#') {
      const code = ref[1] === 'x' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
      return String.fromCodePoint(code);
    }
    const decoded = ENTITIES[ref];
    if (decoded === undefined) throw new ResultsFormatError(`XML: unknown entity ${match}`);
    return decoded;
  });
}

function localName(qname: string): string {
  const colon = qname.indexOf(':');
  return colon < 0 ? qname : qname.slice(colon + 1);
}

const ATTRIBUTE = /([^\s=/>]+)\s*=\s*("([^"]*)"|'([^']*)')/g;

function parseXml(text: string): XmlElement {
  const document: XmlElement = { name: '#document', attributes: new Map(), children: [] };
  const open: XmlElement[] = [document];
  let at = 0;
  const skipPast = (marker: string) => {
    const end = text.indexOf(marker, at);
    if (end < 0) throw new ResultsFormatError(`XML: unterminated construct, ${marker} expected`);
    at = end + marker.length;
    return end;
  };
  while (at < text.length) {
    const lt = text.indexOf('<', at);
    const textEnd = lt < 0 ? text.length : lt;
    if (textEnd > at) open[open.length - 1].children.push(decodeEntities(text.slice(at, textEnd)));
    if (lt < 0) break;
    at = lt;
    if (text.startsWith('<!--', at)) {
      skipPast('-->');
    } else if (text.startsWith('<![CDATA[', at)) {
      const start = at + 9;
      const end = skipPast(']]>');
      open[open.length - 1].children.push(text.slice(start, end));
    } else if (text.startsWith('<?', at)) {
      skipPast('?>');
    } else if (text.startsWith('<!', at)) {
      skipPast('>');
    } else if (text.startsWith('</', at)) {
      const start = at + 2;
      const end = skipPast('>');
      const name = localName(text.slice(start, end).trim());
      const element = open.pop();
      if (!element || element === document || element.name !== name) {
        throw new ResultsFormatError(`XML: unexpected </${name}>`);
      }
    } else {
      const start = at + 1;
      const end = skipPast('>');
      let tag = text.slice(start, end);
      const selfClosing = tag.endsWith('/');
      if (selfClosing) tag = tag.slice(0, -1);
      const nameMatch = /^[^\s/>]+/.exec(tag);
      if (!nameMatch) throw new ResultsFormatError('XML: element without a name');
      const attributes = new Map<string, string>();
      for (const m of tag.slice(nameMatch[0].length).matchAll(ATTRIBUTE)) {
        attributes.set(m[1], decodeEntities(m[3] ?? m[4]));
      }
      const element: XmlElement = { name: localName(nameMatch[0]), attributes, children: [] };
      open[open.length - 1].children.push(element);
      if (!selfClosing) open.push(element);
    }
  }
  if (open.length !== 1) throw new ResultsFormatError(`XML: <${open[open.length - 1].name}> is never closed`);
  const root = document.children.find(isElement);
  if (!root) throw new ResultsFormatError('XML: no root element');
  return root;
}

/**
 * XML results cut at element boundaries: the head once <results> or <boolean> starts, then each
 * complete <result> element on its own.
 */
export class XmlReader implements IncrementalReader {
  private buffer = '';
  private columnOf: Map<string, number> | undefined;

  push(text: string): ResultsEvent[] {
    this.buffer += text;
    const events: ResultsEvent[] = [];
    if (!this.columnOf) {
      const booleanMatch = /<(?:[\w.-]+:)?boolean\s*>([^<]*)<\//.exec(this.buffer);
      if (booleanMatch) return [{ type: 'boolean', value: xmlBoolean(decodeEntities(booleanMatch[1])) }];
      const resultsStart = /<(?:[\w.-]+:)?results[\s/>]/.exec(this.buffer);
      if (!resultsStart) return [];
      const headText = /<(?:[\w.-]+:)?head\s*\/>|<(?:[\w.-]+:)?head[\s>][\s\S]*?<\/(?:[\w.-]+:)?head\s*>/.exec(this.buffer.slice(0, resultsStart.index));
      const head = headText ? parseXml(headText[0]) : undefined;
      const variables = head ? childElements(head, 'variable').map((v) => requiredAttribute(v, 'name')) : [];
      this.columnOf = new Map(variables.map((name, index) => [name, index]));
      events.push({ type: 'head', variables });
      this.buffer = this.buffer.slice(resultsStart.index + resultsStart[0].length);
    }
    const resultElement = /<(?:[\w.-]+:)?result[\s>][\s\S]*?<\/(?:[\w.-]+:)?result\s*>|<(?:[\w.-]+:)?result\s*\/>/g;
    let consumed = 0;
    for (let m = resultElement.exec(this.buffer); m; m = resultElement.exec(this.buffer)) {
      events.push({ type: 'row', row: xmlRow(parseXml(m[0]), this.columnOf) });
      consumed = m.index + m[0].length;
    }
    this.buffer = this.buffer.slice(consumed);
    return events;
  }

  end(): ResultsEvent[] {
    if (!this.columnOf) throw new ResultsFormatError('SPARQL XML results: neither <results> nor <boolean>');
    return [];
  }
}
