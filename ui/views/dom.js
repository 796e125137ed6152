// Builds DOM nodes without innerHTML, so no text can ever be read as markup.

/**
 * h('button', { class: 'x', onclick: fn, 'aria-label': 'y' }, 'text', childNode)
 * Attributes starting with "on" become listeners; null/false attributes are skipped.
 */
export function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (name.startsWith('on') && typeof value === 'function') {
      node.addEventListener(name.slice(2), value);
    } else if (value === true) {
      node.setAttribute(name, '');
    } else {
      node.setAttribute(name, String(value));
    }
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

/** A screen with a header (back button + title) and a body. */
export function screen(id, title, backLabel, onBack, ...body) {
  return h('section', { class: 'screen', id: `screen-${id}`, 'data-screen': id },
    h('header', { class: 'bar' },
      h('button', { class: 'back', id: 'back', type: 'button', onclick: onBack, 'aria-label': backLabel }, '‹ ', backLabel),
      h('h1', {}, title)),
    h('div', { class: 'body' }, ...body));
}

const SVG_NS = 'http://www.w3.org/2000/svg';

/** Like h() for SVG elements (created in the SVG namespace). */
export function s(tag, attrs = {}, ...children) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (name.startsWith('on') && typeof value === 'function') node.addEventListener(name.slice(2), value);
    else node.setAttribute(name, String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}
