/**
 * BSBM-shaped N-Triples for the load benchmarks: products with labels, comments, numeric properties
 * and features, producers, offers and reviews, in the proportions of the BSBM generator (about 10
 * statements per product, reviews with long text). Deterministic (seeded), produced chunk by chunk
 * so that any size can be streamed without holding it.
 */
export function* bsbmLikeChunks(statements: number): Generator<string> {
  const ns = 'http://www4.wiwiss.fu-berlin.de/bizer/bsbm/v01/';
  const v = (local: string) => `<${ns}vocabulary/${local}>`;
  const inst = (local: string) => `<${ns}instances/${local}>`;
  const words = 'lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore et dolore magna aliqua'.split(' ');
  let seed = 42;
  const random = (n: number) => (seed = (seed * 1103515245 + 12345) % 2147483648) % n;
  const text = (n: number) => Array.from({ length: n }, () => words[random(words.length)]).join(' ');
  let written = 0;
  for (let product = 1; written < statements; product++) {
    const p = inst(`dataFromProducer${product % 500}/Product${product}`);
    let chunk = '';
    chunk += `${p} <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> ${inst(`ProductType${random(300)}`)} .\n`;
    chunk += `${p} <http://www.w3.org/2000/01/rdf-schema#label> "${text(3)}" .\n`;
    chunk += `${p} <http://www.w3.org/2000/01/rdf-schema#comment> "${text(30)}" .\n`;
    chunk += `${p} ${v('producer')} ${inst(`Producer${product % 500}`)} .\n`;
    chunk += `${p} ${v('productFeature')} ${inst(`ProductFeature${random(10000)}`)} .\n`;
    chunk += `${p} ${v('productFeature')} ${inst(`ProductFeature${random(10000)}`)} .\n`;
    chunk += `${p} ${v('productPropertyNumeric1')} "${random(2000)}"^^<http://www.w3.org/2001/XMLSchema#integer> .\n`;
    const offer = inst(`dataFromVendor${product % 100}/Offer${product}`);
    chunk += `${offer} ${v('product')} ${p} .\n`;
    chunk += `${offer} ${v('price')} "${random(10000) / 100}"^^<${ns}vocabulary/USD> .\n`;
    const review = inst(`dataFromRatingSite${product % 50}/Review${product}`);
    chunk += `${review} ${v('reviewFor')} ${p} .\n`;
    chunk += `${review} <http://purl.org/stuff/rev#text> "${text(40)}"@en .\n`;
    chunk += `${review} ${v('rating1')} "${random(10)}"^^<http://www.w3.org/2001/XMLSchema#integer> .\n`;
    written += 12;
    yield chunk;
  }
}
