// The layout check shared by the Chromium run (tests/browser/ui.test.mjs, through Playwright) and
// the real app (tests/e2e/layout.test.mjs, through WebDriver): what is wrong on the page as it is
// now, on arrival (scrolled to the top). `layoutProblems` runs inside the page, so it uses nothing
// from outside its own body; `layoutScript` wraps it for WebDriver's execute.

/**
 * Layout problems on the page as it is now: the page scrolling sideways, anything beyond the
 * screen's edge, text cut off, controls drawn over each other, a board that does not fit or is not
 * wholly on the first screen, the Chaturaji setup's Start below it, and (in `oneLine`) labels that
 * wrap. Options: `besideBoard` (landscape: controls beside the board), `oneLine` (a CSS selector
 * of labels that must stay on one line).
 */
export function layoutProblems({ besideBoard = false, oneLine = null } = {}) {
  const problems = [];
  const vw = document.documentElement.clientWidth;
  const vh = window.innerHeight;
  const describe = (el) => `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}${el.className && typeof el.className === 'string' ? `.${el.className.trim().split(/\s+/).join('.')}` : ''} “${(el.textContent ?? '').trim().slice(0, 30)}”`;
  const shown = (el) => {
    const r = el.getBoundingClientRect();
    const s = getComputedStyle(el);
    // checkVisibility: not inside a closed <details>, display: none or content-visibility: hidden.
    return r.width > 1 && r.height > 1 && s.visibility !== 'hidden' && s.opacity !== '0'
      && (el.checkVisibility ? el.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true }) : true);
  };
  const scrolls = (el) => {
    for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) {
      if (['auto', 'scroll'].includes(getComputedStyle(p).overflowX)) return true;
    }
    return false;
  };
  if (document.documentElement.scrollWidth > vw + 1) problems.push(`the page scrolls sideways (${document.documentElement.scrollWidth} px in ${vw})`);
  const all = [...document.querySelectorAll('#app *')].filter(shown);
  for (const el of all) {
    if (el.closest('svg') && el.tagName.toLowerCase() !== 'svg') continue;
    const r = el.getBoundingClientRect();
    if ((r.right > vw + 1 || r.left < -1) && !scrolls(el)) problems.push(`beyond the screen's edge: ${describe(el)} (${Math.round(r.left)}–${Math.round(r.right)})`);
    const s = getComputedStyle(el);
    const leaf = el.children.length === 0 && (el.textContent ?? '').trim() !== '';
    // (A rotated label, as the evaluation bar's, is laid out across its box on purpose.)
    if (leaf && s.display !== 'inline' && s.transform === 'none' && !el.closest('svg') && el.scrollWidth > el.clientWidth + 1 && !scrolls(el)) {
      problems.push(`text cut off: ${describe(el)} (${el.scrollWidth} px in ${el.clientWidth})`);
    }
    // Text taller than a box that hides its overflow (a fixed-height line) is cut off too.
    if (leaf && s.overflowY !== 'visible' && s.display !== 'inline' && !el.closest('svg') && el.scrollHeight > el.clientHeight + 1) {
      problems.push(`text cut off below: ${describe(el)} (${el.scrollHeight} px in ${el.clientHeight})`);
    }
  }
  const controls = all.filter((el) => el.matches('button, input:not([type=hidden]), select, textarea, a[href]'));
  for (let i = 0; i < controls.length; i += 1) {
    for (let j = i + 1; j < controls.length; j += 1) {
      const [a, b] = [controls[i], controls[j]];
      if (a.contains(b) || b.contains(a)) continue;
      const [p, q] = [a.getBoundingClientRect(), b.getBoundingClientRect()];
      const w = Math.min(p.right, q.right) - Math.max(p.left, q.left);
      const h = Math.min(p.bottom, q.bottom) - Math.max(p.top, q.top);
      if (w > 2 && h > 2) problems.push(`controls overlap: ${describe(a)} and ${describe(b)}`);
    }
  }
  for (const board of document.querySelectorAll('#board, #builder-board, #learn-board, #cj-board, #analysis-board')) {
    if (!shown(board)) continue;
    const r = board.getBoundingClientRect();
    if (r.width > vw + 1 || r.height > vh + 1) problems.push(`${describe(board)} does not fit on the screen (${Math.round(r.width)}×${Math.round(r.height)} in ${vw}×${vh})`);
    // On arrival the whole board is on the screen, not partly below it (the builder's ranks).
    else if (r.top < -1 || r.bottom > vh + 1) problems.push(`${describe(board)} is not wholly on the first screen (${Math.round(r.top)}–${Math.round(r.bottom)} in ${vh})`);
    // Landscape: two columns, the board on one side and the controls beside it.
    const beside = (c) => { const b = c.getBoundingClientRect(); return b.left >= r.right - 1 && b.top < r.bottom && b.bottom > r.top; };
    if (besideBoard && !controls.some(beside)) problems.push(`no controls beside ${describe(board)}`);
  }
  // The Chaturaji setup is short: Start is on the first screen, the advanced options folded.
  const start = document.querySelector('#cj-start');
  if (start && shown(start) && start.getBoundingClientRect().bottom > vh + 1) {
    problems.push(`${describe(start)} is below the first screen (${Math.round(start.getBoundingClientRect().bottom)} in ${vh})`);
  }
  if (oneLine) {
    for (const el of document.querySelectorAll(oneLine)) {
      if (!shown(el) || !(el.textContent ?? '').trim()) continue;
      // The lines its text takes: a fragment that starts below the previous line's bottom is a new one.
      const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
      const boxes = [];
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        if (!node.textContent.trim()) continue;
        const range = document.createRange();
        range.selectNodeContents(node);
        boxes.push(...[...range.getClientRects()].filter((b) => b.width > 0 && b.height > 0));
      }
      let lines = 0;
      let bottom = -Infinity;
      for (const b of boxes.sort((x, y) => x.top - y.top)) {
        if (b.top >= bottom - 2) lines += 1;
        bottom = Math.max(bottom, b.bottom);
      }
      if (lines > 1) problems.push(`label wraps: ${describe(el)} (${lines} lines)`);
    }
  }
  return problems;
}

/** `layoutProblems` as a WebDriver script body; its options are the script's first argument. */
export const layoutScript = `return (${layoutProblems.toString()})(arguments[0]);`;
