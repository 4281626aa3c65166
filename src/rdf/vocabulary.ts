/** IRIs of the vocabularies the engine and the formats name directly. */
export const XSD = 'http://www.w3.org/2001/XMLSchema#';
export const RDF = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#';

export const xsd = {
  string: `${XSD}string`,
  boolean: `${XSD}boolean`,
  integer: `${XSD}integer`,
  decimal: `${XSD}decimal`,
  float: `${XSD}float`,
  double: `${XSD}double`,
  dateTime: `${XSD}dateTime`,
  date: `${XSD}date`,
  time: `${XSD}time`,
  duration: `${XSD}duration`,
  dayTimeDuration: `${XSD}dayTimeDuration`,
  yearMonthDuration: `${XSD}yearMonthDuration`,
} as const;

export const rdf = {
  type: `${RDF}type`,
  langString: `${RDF}langString`,
  dirLangString: `${RDF}dirLangString`,
  reifies: `${RDF}reifies`,
  first: `${RDF}first`,
  rest: `${RDF}rest`,
  nil: `${RDF}nil`,
} as const;
