/**
 * The analytic workload: query shapes of our own over the BSBM data, written to find a planner's
 * cliffs rather than to look like a shop's front page (that is Explore). Each shape says what it asks
 * and which planner technique it stresses; its parameters are drawn from the data
 * (analytic-params.ts), so that every instance has an answer at every size.
 *
 * Every shape's answer is fully determined: an ORDER BY always ends in a key that breaks ties, so
 * that a LIMIT cannot cut between equal rows, and the cross-check (analytic-check.ts) may compare
 * rows in order where a shape is `ordered`.
 */

/** Values drawn from the dataset for one instance of every shape. */
export interface AnalyticParams {
  /** A product with reviews and features (IRI, without brackets). */
  product: string;
  /** A product type below the root that has sub-types of its own. */
  productType: string;
  /** A month with reviews and one before it: 'YYYY-MM'. */
  month: string;
  /** A dateTime from the offers' validity ranges, 'YYYY-MM-DDT00:00:00'. */
  day: string;
  /** A country of reviewers (IRI). */
  country: string;
  /** A value of productPropertyNumeric1. */
  numeric: number;
  /** A lower-case letter that product labels start with. */
  letter: string;
}

export interface AnalyticShape {
  /** a01..aNN */
  name: string;
  /** What the query asks, in a line. */
  title: string;
  /** Whether the answer's order is part of it (ORDER BY with a total order). */
  ordered: boolean;
  text(p: AnalyticParams): string;
}

const PREFIXES = `PREFIX bsbm: <http://www4.wiwiss.fu-berlin.de/bizer/bsbm/v01/vocabulary/>
PREFIX rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#>
PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>
PREFIX dc: <http://purl.org/dc/elements/1.1/>
PREFIX rev: <http://purl.org/stuff/rev#>
PREFIX xsd: <http://www.w3.org/2001/XMLSchema#>
`;

/** The first day of `month` and of the month after, as xsd:date literals. */
export function monthBounds(month: string): { from: string; to: string } {
  const [year, m] = month.split('-').map(Number);
  const next = m === 12 ? `${year + 1}-01` : `${year}-${String(m + 1).padStart(2, '0')}`;
  return { from: `"${month}-01"^^xsd:date`, to: `"${next}-01"^^xsd:date` };
}

/** The month before 'YYYY-MM'. */
export function previousMonth(month: string): string {
  const [year, m] = month.split('-').map(Number);
  return m === 1 ? `${year - 1}-12` : `${year}-${String(m - 1).padStart(2, '0')}`;
}

const shape = (name: string, title: string, ordered: boolean, body: (p: AnalyticParams) => string): AnalyticShape => ({
  name,
  title,
  ordered,
  text: (p) => PREFIXES + body(p).trim() + '\n',
});

export const ANALYTIC_SHAPES: AnalyticShape[] = [
  // Products sharing the most features with one product (issue 23's first shape). Stresses: an
  // equality FILTER between two variables turned into a join on the feature (value equality kept:
  // features are IRIs, so term equality is value equality), plus an inequality FILTER, grouping and
  // top-k. Evaluated literally it is a cross product of the product's features with all features.
  shape(
    'a01',
    'products sharing the most features with one product',
    true,
    (p) => `
SELECT ?other (COUNT(*) AS ?shared) WHERE {
  <${p.product}> bsbm:productFeature ?f .
  ?other bsbm:productFeature ?g .
  FILTER(?f = ?g && ?other != <${p.product}>)
}
GROUP BY ?other ORDER BY DESC(?shared) ?other LIMIT 10`,
  ),

  // Reviews per product in one month against the month before (issue 23's second shape). Stresses:
  // a range scan over xsd:date literals, two grouped sub-selects joined on their group key (a hash or
  // merge join of two aggregates, not a nested loop re-running one per row of the other).
  shape('a02', 'reviews per product in a month against the month before', true, (p) => {
    const now = monthBounds(p.month);
    const before = monthBounds(previousMonth(p.month));
    return `
SELECT ?product ?now ?before WHERE {
  { SELECT ?product (COUNT(?r) AS ?now) WHERE {
      ?r bsbm:reviewFor ?product ; dc:date ?d .
      FILTER(?d >= ${now.from} && ?d < ${now.to})
    } GROUP BY ?product }
  { SELECT ?product (COUNT(?r) AS ?before) WHERE {
      ?r bsbm:reviewFor ?product ; dc:date ?d .
      FILTER(?d >= ${before.from} && ?d < ${before.to})
    } GROUP BY ?product }
}
ORDER BY DESC(?now) ?product LIMIT 20`;
  }),

  // A per-type price average joined with a grouped sub-select (issue 23's third shape): the average
  // offer price of each product type, next to the number of products of that type with reviews.
  // Stresses: grouping over a three-pattern join of every offer (hundreds of thousands of rows at
  // 10k), a join of two aggregates on the group key, AVG over a cast.
  shape(
    'a03',
    'average offer price per product type, with its reviewed products',
    true,
    () => `
SELECT ?type ?avgPrice ?reviewed WHERE {
  { SELECT ?type (AVG(xsd:double(str(?price))) AS ?avgPrice) WHERE {
      ?offer bsbm:product ?product ; bsbm:price ?price .
      ?product rdf:type ?type .
    } GROUP BY ?type }
  { SELECT ?type (COUNT(DISTINCT ?product) AS ?reviewed) WHERE {
      ?review bsbm:reviewFor ?product .
      ?product rdf:type ?type .
    } GROUP BY ?type }
}
ORDER BY ?type`,
  ),

  // A count over one product's review ratings (issue 23's fourth shape). Stresses: starting from the
  // bound product (index look-up on the object of reviewFor) instead of scanning every rating, and
  // grouping on IDs without decoding.
  shape(
    'a04',
    "one product's rating-1 distribution",
    true,
    (p) => `
SELECT ?rating (COUNT(?review) AS ?n) WHERE {
  ?review bsbm:reviewFor <${p.product}> ; bsbm:rating1 ?rating .
}
GROUP BY ?rating ORDER BY ?rating`,
  ),

  // Offers valid on a given day, per vendor country. Stresses: two range FILTERs over xsd:dateTime
  // on different variables of one subject (a range scan on one, a check on the other), a star join
  // to the vendor and grouping.
  shape(
    'a05',
    'offers valid on one day, per vendor country',
    true,
    (p) => `
SELECT ?country (COUNT(?offer) AS ?offers) WHERE {
  ?offer bsbm:validFrom ?from ; bsbm:validTo ?to ; bsbm:vendor ?vendor .
  ?vendor bsbm:country ?country .
  FILTER(?from <= "${p.day}"^^xsd:dateTime && ?to >= "${p.day}"^^xsd:dateTime)
}
GROUP BY ?country ORDER BY ?country`,
  ),

  // Products whose label falls in one letter's range, in label order. Stresses: a range scan over
  // plain string literals (ordered by code point) and ORDER BY on the scanned key.
  shape(
    'a06',
    'products labelled within one letter, by label',
    true,
    (p) => `
SELECT ?product ?label WHERE {
  ?product rdf:type bsbm:Product ; rdfs:label ?label .
  FILTER(?label >= "${p.letter}" && ?label < "${String.fromCharCode(p.letter.charCodeAt(0) + 1)}")
}
ORDER BY ?label ?product LIMIT 50`,
  ),

  // Products in a numeric window of one property and above a threshold of another. Stresses: a range
  // scan over xsd:integer values driving a star join, the second range a filter.
  shape(
    'a07',
    'products in a numeric window of two properties',
    false,
    (p) => `
SELECT ?product ?n1 ?n2 WHERE {
  ?product bsbm:productPropertyNumeric1 ?n1 ; bsbm:productPropertyNumeric2 ?n2 .
  FILTER(?n1 >= ${p.numeric} && ?n1 < ${p.numeric + 100} && ?n2 > 1000)
}`,
  ),

  // Products nobody reviewed. Stresses: NOT EXISTS as an anti-join over all products against all
  // reviews (a hash anti-join, not one EXISTS probe per product that re-plans its pattern).
  shape(
    'a08',
    'products without reviews (NOT EXISTS)',
    false,
    () => `
SELECT (COUNT(?product) AS ?unreviewed) WHERE {
  ?product rdf:type bsbm:Product .
  FILTER NOT EXISTS { ?review bsbm:reviewFor ?product }
}`,
  ),

  // Offers whose vendor is not in one country. Stresses: MINUS over every offer (an anti-join on the
  // shared variable), grouping of what is left.
  shape(
    'a09',
    'offers of vendors outside one country (MINUS), per delivery time',
    true,
    (p) => `
SELECT ?deliveryDays (COUNT(?offer) AS ?offers) WHERE {
  ?offer bsbm:vendor ?vendor ; bsbm:deliveryDays ?deliveryDays .
  MINUS { ?vendor bsbm:country <${p.country}> }
}
GROUP BY ?deliveryDays ORDER BY ?deliveryDays`,
  ),

  // Reviews without a fourth rating, per reviewer country. Stresses: OPTIONAL … FILTER(!BOUND) over
  // every review, which a planner should run as an anti-join rather than a left join and a filter.
  shape(
    'a10',
    'reviews without rating 4 (OPTIONAL/!BOUND), per reviewer country',
    true,
    () => `
SELECT ?country (COUNT(?review) AS ?n) WHERE {
  ?review rev:reviewer ?reviewer .
  ?reviewer bsbm:country ?country .
  OPTIONAL { ?review bsbm:rating4 ?r4 }
  FILTER(!BOUND(?r4))
}
GROUP BY ?country ORDER BY ?country`,
  ),

  // Review statistics per producer: COUNT, AVG, SUM and COUNT(DISTINCT) over every review with a
  // first rating. Stresses: hash grouping over hundreds of thousands of joined rows, aggregates on
  // IDs and on numbers without decoding the terms that are only counted.
  shape(
    'a11',
    'review count, average, sum and distinct products per producer',
    true,
    () => `
SELECT ?producer (COUNT(?review) AS ?reviews) (AVG(?rating) AS ?avg) (SUM(?rating) AS ?sum) (COUNT(DISTINCT ?product) AS ?products) WHERE {
  ?review bsbm:reviewFor ?product ; bsbm:rating1 ?rating .
  ?product bsbm:producer ?producer .
}
GROUP BY ?producer ORDER BY ?producer`,
  ),

  // Distinct reviewers and reviews per reviewer country. Stresses: COUNT(DISTINCT) next to COUNT in
  // one grouping over every review.
  shape(
    'a12',
    'distinct reviewers and reviews per country',
    true,
    () => `
SELECT ?country (COUNT(DISTINCT ?reviewer) AS ?reviewers) (COUNT(?review) AS ?reviews) WHERE {
  ?review rev:reviewer ?reviewer .
  ?reviewer bsbm:country ?country .
}
GROUP BY ?country ORDER BY ?country`,
  ),

  // The ten latest reviews with their product's label. Stresses: top-k (ORDER BY … LIMIT) over every
  // review, keeping ten rows instead of sorting all; the label join done after the cut.
  shape(
    'a13',
    'the ten latest reviews (top-k over all reviews)',
    true,
    () => `
SELECT ?review ?date ?label WHERE {
  ?review bsbm:reviewDate ?date ; bsbm:reviewFor ?product .
  ?product rdfs:label ?label .
}
ORDER BY DESC(?date) ?review LIMIT 10`,
  ),

  // How many distinct (producer, feature) pairs there are. Stresses: DISTINCT over a large join
  // result (every product's every feature) inside a sub-select, hashing IDs.
  shape(
    'a14',
    'distinct producer-feature pairs (DISTINCT over a large join)',
    false,
    () => `
SELECT (COUNT(*) AS ?pairs) WHERE {
  SELECT DISTINCT ?producer ?feature WHERE {
    ?product bsbm:producer ?producer ; bsbm:productFeature ?feature .
  }
}`,
  ),

  // Products most talked about in a month, counting reviews and offers dated in it. Stresses: a UNION
  // of two large branches, each with its own date-range scan, feeding one grouping and top-k.
  shape('a15', 'reviews and offers dated in one month, per product (UNION)', true, (p) => {
    const now = monthBounds(p.month);
    return `
SELECT ?product (COUNT(?x) AS ?n) WHERE {
  { ?x bsbm:reviewFor ?product ; dc:date ?d . }
  UNION
  { ?x bsbm:product ?product ; dc:date ?d . }
  FILTER(?d >= ${now.from} && ?d < ${now.to})
}
GROUP BY ?product ORDER BY DESC(?n) ?product LIMIT 10`;
  }),

  // Products with seven properties bound, one in a numeric range. Stresses: a long star join on one
  // subject, ordered by selectivity (the range first), no cross products.
  shape(
    'a16',
    'a seven-pattern star on products with a numeric range',
    false,
    (p) => `
SELECT (COUNT(?product) AS ?n) WHERE {
  ?product rdfs:label ?label ; bsbm:producer ?producer ; bsbm:productFeature ?feature ;
           bsbm:productPropertyNumeric1 ?n1 ; bsbm:productPropertyNumeric2 ?n2 ;
           bsbm:productPropertyTextual1 ?t1 ; rdf:type bsbm:Product .
  FILTER(?n1 >= ${p.numeric} && ?n1 < ${p.numeric + 200})
}`,
  ),

  // From the reviewers of one country along review → product → offer → vendor to the vendors'
  // countries. Stresses: a six-pattern chain join whose best order starts at the bound country, the
  // join sizes estimated along the chain.
  shape(
    'a17',
    "a chain from one country's reviewers to the vendors of what they reviewed",
    true,
    (p) => `
SELECT ?vendorCountry (COUNT(*) AS ?n) WHERE {
  ?reviewer bsbm:country <${p.country}> .
  ?review rev:reviewer ?reviewer ; bsbm:reviewFor ?product .
  ?offer bsbm:product ?product ; bsbm:vendor ?vendor .
  ?vendor bsbm:country ?vendorCountry .
}
GROUP BY ?vendorCountry ORDER BY ?vendorCountry`,
  ),

  // Products of a type or any of its sub-types, with their offers. Stresses: a property path
  // rdfs:subClassOf* over the product-type hierarchy (evaluated once, a small set) joined with the
  // large rdf:type relation, then with the offers.
  shape(
    'a18',
    'offers for products of a type and its sub-types (subClassOf*)',
    false,
    (p) => `
SELECT (COUNT(DISTINCT ?product) AS ?products) (COUNT(?offer) AS ?offers) WHERE {
  ?type rdfs:subClassOf* <${p.productType}> .
  ?product rdf:type ?type .
  ?offer bsbm:product ?product .
}`,
  ),

  // Pairs of offers for the same product of a type, by different vendors, the first delivering
  // sooner. Stresses: a self-join on the product with an inequality (!=) and an order (<) FILTER
  // between variables of the two sides, and a path `+` (strict sub-types) choosing the products.
  shape(
    'a19',
    'offer pairs of one product, different vendors, faster delivery (subClassOf+)',
    false,
    (p) => `
SELECT (COUNT(*) AS ?pairs) WHERE {
  ?type rdfs:subClassOf+ <${p.productType}> .
  ?product rdf:type ?type .
  ?o1 bsbm:product ?product ; bsbm:vendor ?v1 ; bsbm:deliveryDays ?d1 .
  ?o2 bsbm:product ?product ; bsbm:vendor ?v2 ; bsbm:deliveryDays ?d2 .
  FILTER(?v1 != ?v2 && ?d1 < ?d2)
}`,
  ),
];
