'use strict';
// Drives the workbench's real quick input (quick picks and input boxes) for tests in the
// extension host, which cannot reach the page themselves. A test logs one line,
//   [ui:<id>] [{"waitForInput": "Create TTL Index"}, {"type": "seenAt"}, {"press": "Enter"}]
// and the code-server route runs the steps with Playwright, in order, then writes
// `<uiDir>/<id>.json` with what the quick input shows afterwards, the texts `read` steps found
// (or the error).
const fs = require('node:fs');
const path = require('node:path');

const UI_REQUEST = /^\[ui:(\d+)\] (\[.*\])$/;
const STEP_TIMEOUT_MS = 20_000;

/** What the quick input shows: null when it is closed. */
function readQuickInput() {
  const widget = document.querySelector('.quick-input-widget');
  if (!widget || widget.style.display === 'none' || widget.offsetParent === null) return null;
  const text = (sel) => (widget.querySelector(sel)?.textContent ?? '').trim();
  const input = widget.querySelector('.quick-input-box input');
  return {
    // Keys go to the focused element: a box just shown may not have the focus yet.
    focused: !!input && document.activeElement === input,
    title: text('.quick-input-title'),
    message: text('.quick-input-message'),
    value: input ? input.value : '',
    placeholder: input ? (input.getAttribute('placeholder') ?? '') : '',
    items: [...widget.querySelectorAll('.quick-input-list .monaco-list-row')].map((r) =>
      (r.getAttribute('aria-label') ?? r.textContent ?? '').trim(),
    ),
  };
}

/** For a failed click: how many elements match `selector`, how the first is shown, and what has the focus. */
function describeMatches(selector) {
  const all = [...document.querySelectorAll(selector)];
  const first = all[0];
  const shown = first
    ? `first: ${first.className}, display ${getComputedStyle(first).display}, visibility ${getComputedStyle(first).visibility}, ${first.getBoundingClientRect().width}x${first.getBoundingClientRect().height}`
    : 'none in the page';
  const active = document.activeElement;
  return `${all.length} match ${selector}; ${shown}; focus in ${active ? `${active.tagName}.${active.className}` : 'nothing'}`;
}

/**
 * The text of each element `selector` finds that is shown (a welcome view, a tree's rows), or the
 * value of its `attribute` (a walkthrough step's aria-checked).
 */
function readShown(selector, attribute) {
  return [...document.querySelectorAll(selector)]
    .filter((e) => e.offsetParent !== null)
    .map((e) => (attribute ? (e.getAttribute(attribute) ?? '') : (e.textContent ?? '').replace(/\s+/g, ' ').trim()));
}

// Expressions evaluated in the page (strings: the workbench's CSP forbids building functions there).
const STATE = `(${readQuickInput.toString()})()`;
const waitFor = (page, expression) =>
  page.waitForFunction(expression, undefined, { timeout: STEP_TIMEOUT_MS, polling: 100 });

const shown = (selector, attribute) =>
  `(${readShown.toString()})(${JSON.stringify(selector)}, ${JSON.stringify(attribute ?? '')})`;

async function runStep(page, step, reads) {
  if (typeof step.waitForShown === 'string') {
    // An element shown, holding `text` when given (the welcome content of a view, say).
    const text = JSON.stringify(step.text ?? '');
    await waitFor(page, `${shown(step.waitForShown)}.some((t) => t.includes(${text}))`);
  } else if (typeof step.waitForHidden === 'string') {
    await waitFor(page, `${shown(step.waitForHidden)}.length === 0`);
  } else if (typeof step.read === 'string') {
    reads.push({ selector: step.read, texts: await page.evaluate(shown(step.read, step.attribute)) });
  } else if (typeof step.waitForInput === 'string') {
    // The title (or placeholder) names the box: a box that is closing still shows the old one.
    const wanted = JSON.stringify(step.waitForInput);
    const named = `((s) => s !== null && (s.title.includes(${wanted}) || s.placeholder.includes(${wanted})))(${STATE})`;
    await waitFor(page, named);
    // The box is up but the page may have put the focus elsewhere (a notebook or webview that had
    // it, a loaded machine): give it to the input, as a user clicking into it would.
    const state = await page.evaluate(STATE);
    if (state && !state.focused) await page.focus('.quick-input-widget .quick-input-box input');
    await waitFor(page, `((s) => s !== null && s.focused)(${STATE})`);
  } else if (typeof step.waitForMessage === 'string') {
    await waitFor(page, `((s) => s !== null && s.message.includes(${JSON.stringify(step.waitForMessage)}))(${STATE})`);
  } else if (step.waitForClosed === true) {
    await waitFor(page, `${STATE} === null`);
  } else if (typeof step.type === 'string') {
    await page.keyboard.type(step.type, { delay: 15 });
  } else if (typeof step.press === 'string') {
    await page.keyboard.press(step.press);
  } else if (typeof step.click === 'string') {
    // A mouse click on what the selector finds first (the editor's lightbulb, say).
    try {
      await page.click(step.click, { timeout: STEP_TIMEOUT_MS });
    } catch (e) {
      // Say what the page had: nothing matching, or something hidden (and where the focus was).
      const facts = await page
        .evaluate(`(${describeMatches.toString()})(${JSON.stringify(step.click)})`)
        .catch(() => '');
      e.message = `${e.message.split('\n')[0]} (${facts})\n${e.message}`;
      throw e;
    }
  } else {
    throw new Error(`unknown UI step ${JSON.stringify(step)}`);
  }
}

/**
 * Handles one console line of the host if it is a UI request; returns a promise of its end, or
 * undefined for other lines. Requests run one after another (`queue`).
 */
function createUiDriver(page, uiDir, log) {
  let queue = Promise.resolve();
  return (text) => {
    const m = UI_REQUEST.exec(text.trim());
    if (!m) return undefined;
    const [, id, json] = m;
    queue = queue.then(async () => {
      let reply;
      const reads = [];
      try {
        for (const step of JSON.parse(json)) await runStep(page, step, reads);
        reply = { ok: true, state: await page.evaluate(STATE), reads };
      } catch (e) {
        let state = null;
        try {
          state = await page.evaluate(STATE);
        } catch {
          // the page is gone; the error says enough
        }
        reply = { ok: false, error: e.message.split('\n')[0], state };
        log(`[integration] UI request ${id} failed: ${reply.error}`);
      }
      const file = path.join(uiDir, `${id}.json`);
      fs.writeFileSync(`${file}.partial`, JSON.stringify(reply));
      fs.renameSync(`${file}.partial`, file); // the test polls for this file; it must appear whole
    });
    return queue;
  };
}

module.exports = { createUiDriver, UI_REQUEST };
