/**
 * Label spaces for the blank nodes Quiver writes into a store. A store keeps a blank node by its
 * label, so two writes that mean different nodes must never give them the same label: not two
 * documents, not two updates, and not two processes, one after the other (a server restarted) or
 * side by side (`quiver update` next to a running server). A per-process counter alone gives the
 * second process the first one's labels, and two documents' `_:x` became one node. So each process
 * draws a random tag once, and each scope adds its own number to it.
 *
 * The tag comes from Math.random, which V8 seeds per process from the operating system's entropy:
 * uniqueness is what is needed here, not secrecy, and node:crypto would cost a one-shot command
 * some 10 ms to load.
 */

const TAG_BITS = 24;
/** 48 random bits: two processes that ever wrote the same store meet with a chance of 2^-48. */
const PROCESS_TAG = randomDigits() + randomDigits();
let scopes = 0;

/**
 * A new label space: prefix a blank node's own label with it. `kind` says what opened it (a
 * letter: d a document, u an update, l a LOAD, f a bulk-loaded file), for whoever reads a dump.
 */
export function newBlankNodeScope(kind: string): string {
  return `${kind}${PROCESS_TAG}${(scopes++).toString(36)}_`;
}

function randomDigits(): string {
  return Math.floor(Math.random() * 2 ** TAG_BITS)
    .toString(36)
    .padStart(5, '0');
}
