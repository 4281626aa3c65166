/**
 * Variables become slots of the solution rows. A sub-SELECT is a scope of its own: its projected
 * variables share the outer slots, the rest get fresh slots that nothing outside can see.
 */
export class SlotAllocator {
  private count = 0;
  readonly names: string[] = [];

  allocate(name: string): number {
    this.names.push(name);
    return this.count++;
  }

  get width(): number {
    return this.count;
  }
}

export class Scope {
  private readonly slots = new Map<string, number>();

  constructor(readonly allocator: SlotAllocator) {}

  /** The slot of a variable (allocated on first use). Blank nodes of patterns are variables too. */
  slot(name: string): number {
    let slot = this.slots.get(name);
    if (slot === undefined) {
      slot = this.allocator.allocate(name);
      this.slots.set(name, slot);
    }
    return slot;
  }

  has(name: string): boolean {
    return this.slots.has(name);
  }

  /** A scope for a sub-SELECT: its projected variables are ours, everything else is its own. */
  child(projected: string[]): Scope {
    const inner = new Scope(this.allocator);
    for (const name of projected) inner.slots.set(name, this.slot(name));
    return inner;
  }

  /** A slot no query variable can name (provenance tags, path intermediates). */
  hidden(purpose: string): number {
    return this.allocator.allocate(`#${purpose}`);
  }
}
