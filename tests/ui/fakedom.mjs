// A minimal DOM stand-in for rendering views in node: elements with attributes, children,
// listeners and a click(); enough for ui/views/dom.js (the real web view is in tests/e2e).
export class FakeNode {
  constructor(tag) {
    this.tag = tag;
    this.children = [];
    this.attrs = {};
    this.text = '';
    this.listeners = {};
    this.style = {};
    this.dataset = {};
    this.classList = { add() {}, remove() {}, toggle() {}, contains: () => false };
  }
  setAttribute(k, v) { this.attrs[k] = v; }
  getAttribute(k) { return this.attrs[k] ?? null; }
  addEventListener(name, fn) { (this.listeners[name] ??= []).push(fn); }
  append(...c) { this.children.push(...c); }
  querySelector() { return null; }
  querySelectorAll() { return []; }
  animate() { return { cancel() {} }; }
  focus() {}
  click() { for (const fn of this.listeners.click ?? []) fn({ target: this, currentTarget: this, preventDefault() {}, stopPropagation() {} }); }
}

export function installFakeDom() {
  globalThis.Node = FakeNode;
  globalThis.document = {
    createElement: (t) => new FakeNode(t),
    createElementNS: (_, t) => new FakeNode(t),
    createTextNode: (s) => Object.assign(new FakeNode('#text'), { text: s }),
    elementFromPoint: () => null,
  };
  globalThis.window ??= { matchMedia: () => ({ matches: false }) };
}

export const find = (node, id) => {
  if (node.attrs?.id === id) return node;
  for (const c of node.children ?? []) {
    const f = find(c, id);
    if (f) return f;
  }
  return null;
};

export const text = (node) => node.text + node.children.map(text).join('');
