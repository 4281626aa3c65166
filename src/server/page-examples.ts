/** What the query and update pages offer to start from: well-known prefixes and example requests. */

export interface Example {
  name: string;
  text: string;
}

/** Offered as completions in the editor, and used to shorten IRIs in result tables. */
export const KNOWN_PREFIXES: Record<string, string> = {
  rdf: 'http://www.w3.org/1999/02/22-rdf-syntax-ns#',
  rdfs: 'http://www.w3.org/2000/01/rdf-schema#',
  xsd: 'http://www.w3.org/2001/XMLSchema#',
  owl: 'http://www.w3.org/2002/07/owl#',
  foaf: 'http://xmlns.com/foaf/0.1/',
  dc: 'http://purl.org/dc/elements/1.1/',
  dcterms: 'http://purl.org/dc/terms/',
  skos: 'http://www.w3.org/2004/02/skos/core#',
  schema: 'http://schema.org/',
  sh: 'http://www.w3.org/ns/shacl#',
  prov: 'http://www.w3.org/ns/prov#',
  dcat: 'http://www.w3.org/ns/dcat#',
  void: 'http://rdfs.org/ns/void#',
  geo: 'http://www.opengis.net/ont/geosparql#',
  sd: 'http://www.w3.org/ns/sparql-service-description#',
  ex: 'http://example.org/',
};

export const QUERY_EXAMPLES: Example[] = [
  { name: 'Any ten triples', text: 'SELECT * WHERE {\n  ?s ?p ?o\n}\nLIMIT 10' },
  {
    name: 'Classes by number of instances (try the chart)',
    text: 'SELECT ?class (COUNT(?s) AS ?instances) WHERE {\n  ?s a ?class\n}\nGROUP BY ?class\nORDER BY DESC(?instances)\nLIMIT 20',
  },
  {
    name: 'Predicates by use',
    text: 'SELECT ?predicate (COUNT(*) AS ?uses) WHERE {\n  ?s ?predicate ?o\n}\nGROUP BY ?predicate\nORDER BY DESC(?uses)\nLIMIT 20',
  },
  {
    name: 'Named graphs and their sizes',
    text: 'SELECT ?graph (COUNT(*) AS ?triples) WHERE {\n  GRAPH ?graph { ?s ?p ?o }\n}\nGROUP BY ?graph\nORDER BY DESC(?triples)',
  },
  {
    name: 'A neighbourhood as a graph (try the graph view)',
    text: 'CONSTRUCT {\n  ?s ?p ?o\n} WHERE {\n  ?s ?p ?o\n}\nLIMIT 50',
  },
  { name: 'Is the store empty?', text: 'ASK {\n  ?s ?p ?o\n}' },
];

export const UPDATE_EXAMPLES: Example[] = [
  {
    name: 'Insert data',
    text: 'PREFIX ex: <http://example.org/>\nINSERT DATA {\n  ex:subject ex:predicate "object"\n}',
  },
  {
    name: 'Insert into a named graph',
    text: 'PREFIX ex: <http://example.org/>\nINSERT DATA {\n  GRAPH ex:graph {\n    ex:subject ex:predicate "object"\n  }\n}',
  },
  {
    name: 'Delete matching triples',
    text: 'PREFIX ex: <http://example.org/>\nDELETE WHERE {\n  ex:subject ?p ?o\n}',
  },
  { name: 'Clear a named graph', text: 'CLEAR GRAPH <http://example.org/graph>' },
];
