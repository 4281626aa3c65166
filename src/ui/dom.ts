/**
 * Building elements. Text always goes in as text nodes (never as markup), so nothing from a query,
 * a result or an error message can become HTML.
 */

export interface ElementProps {
  className?: string;
  text?: string;
  title?: string;
  attrs?: Record<string, string>;
}

export function el<K extends keyof HTMLElementTagNameMap>(tag: K, props: ElementProps = {}, children: (Node | string)[] = []): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  if (props.className !== undefined) element.className = props.className;
  if (props.text !== undefined) element.textContent = props.text;
  if (props.title !== undefined) element.title = props.title;
  for (const [name, value] of Object.entries(props.attrs ?? {})) element.setAttribute(name, value);
  for (const child of children) element.append(child);
  return element;
}

export function button(label: string, onClick: () => void, className = ''): HTMLButtonElement {
  const b = el('button', { text: label, className, attrs: { type: 'button' } });
  b.addEventListener('click', onClick);
  return b;
}

export function clear(element: Element): void {
  element.replaceChildren();
}

/** Milliseconds as people read them. */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms)) return '? ms';
  return ms < 1000 ? `${ms.toFixed(ms < 10 ? 1 : 0)} ms` : `${(ms / 1000).toFixed(2)} s`;
}

export function plural(count: number, one: string, many: string): string {
  return `${count.toLocaleString('en')} ${count === 1 ? one : many}`;
}
