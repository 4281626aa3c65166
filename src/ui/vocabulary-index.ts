/**
 * The store's vocabulary as the editor's completion uses it: fetched once per page, when completion
 * first needs it (never per keystroke), and indexed by namespace, so that what is typed after
 * `prefix:` is matched against that namespace's classes and properties only.
 */
import type { Completion } from '@codemirror/autocomplete';
import { authorizationHeader, type Credentials } from './endpoint.js';

/** What {base}/sparql/vocabulary answers (src/server/store-vocabulary.ts). */
interface StoreVocabulary {
  classes: { iri: string; count: number }[];
  properties: { iri: string; count: number }[];
  prefixes: Record<string, string>;
}

/** Local names a prefixed name can carry as they are (no escapes needed). */
const PLAIN_LOCAL = /^[A-Za-z_][\w-]*$/;

export class VocabularyIndex {
  readonly prefixes: Record<string, string>;
  private readonly classes = new Map<string, RankedCompletion[]>();
  private readonly properties = new Map<string, RankedCompletion[]>();

  constructor(vocabulary: StoreVocabulary) {
    this.prefixes = vocabulary.prefixes;
    index(this.classes, vocabulary.classes, 'class');
    index(this.properties, vocabulary.properties, 'property');
  }

  /** The namespace's terms, the most used first; classes first where a class is expected. */
  termsIn(namespace: string, classExpected: boolean): Completion[] {
    const key = `${classExpected ? 'c' : 'p'} ${namespace}`;
    let options = this.ranked.get(key);
    if (options === undefined) {
      const classes = this.classes.get(namespace) ?? [];
      const properties = this.properties.get(namespace) ?? [];
      options = classExpected ? [...classes.map(first), ...properties.map(second)] : [...properties.map(first), ...classes.map(second)];
      this.ranked.set(key, options);
    }
    return options;
  }

  private readonly ranked = new Map<string, Completion[]>();
}

/** A term's rank by use among those of its kind: 0 for the most used, towards 1 for the least. */
type RankedCompletion = Completion & { rank: number };

function index(into: Map<string, RankedCompletion[]>, terms: { iri: string; count: number }[], type: 'class' | 'property'): void {
  terms.forEach((term, rank) => {
    const cut = Math.max(term.iri.lastIndexOf('#'), term.iri.lastIndexOf('/'), term.iri.lastIndexOf(':')) + 1;
    const local = term.iri.slice(cut);
    if (!PLAIN_LOCAL.test(local)) return;
    const namespace = term.iri.slice(0, cut);
    let list = into.get(namespace);
    if (list === undefined) into.set(namespace, (list = []));
    list.push({ label: local, type, detail: `${type}, ${term.count.toLocaleString('en')} uses`, rank: rank / terms.length });
  });
}

// CodeMirror orders equally good matches by boost (-99 to 99): the expected kind above the other, each by use.
function first({ rank, ...option }: RankedCompletion): Completion {
  return { ...option, boost: 99 - 98 * rank };
}

function second({ rank, ...option }: RankedCompletion): Completion {
  return { ...option, boost: -1 - 98 * rank };
}

/** Loads the vocabulary once, on first use; undefined until it has arrived (or when it cannot). */
export class VocabularySource {
  private index: VocabularyIndex | undefined;
  private loading = false;
  private readonly arrivalListeners: (() => void)[] = [];

  constructor(
    private readonly url: string,
    private readonly credentials: () => Credentials | undefined,
  ) {}

  /** Calls `listener` when the vocabulary arrives (an editor offers what was typed before it did). */
  onArrival(listener: () => void): void {
    this.arrivalListeners.push(listener);
  }

  current(): VocabularyIndex | undefined {
    if (this.index === undefined && !this.loading) void this.load();
    return this.index;
  }

  private async load(): Promise<void> {
    this.loading = true;
    try {
      const headers: Record<string, string> = { accept: 'application/json' };
      const authorization = authorizationHeader(this.credentials());
      if (authorization !== undefined) headers['authorization'] = authorization;
      const response = await fetch(this.url, { headers, cache: 'no-store' });
      if (!response.ok) throw new Error(`${response.status}`);
      this.index = new VocabularyIndex((await response.json()) as StoreVocabulary);
      for (const listener of this.arrivalListeners) listener();
    } catch {
      // No vocabulary (an older server, no credentials yet): completion offers what it knows; a later use tries again.
      this.loading = false;
    }
  }
}
