// Entry point of the integration tests inside the VS Code extension host (the
// extensionTestsPath the runner hands to VS Code). VS Code calls run(): resolving means every
// test passed, rejecting means something failed.
//
// It runs mocha over every *.test.js file next to this one (the compiled
// test/integration/suite/*.test.ts), so a new suite file is picked up without registering it.
// Write tests with explicit imports, which work whichever mocha UI is in force:
//   import { suite, test, suiteSetup } from 'mocha';
// TTL_WORKBENCH_IT_GREP=<text> runs only the tests whose full title contains that text;
// TTL_WORKBENCH_IT_GREP=/<regex>/ those whose title matches it (to run several suites together).
import * as fs from 'node:fs';
import * as path from 'node:path';
import Mocha from 'mocha';

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

export function run(): Promise<void> {
  const mocha = new Mocha({ ui: 'tdd', timeout: 60_000, color: false, reporter: 'spec' });
  const grep = process.env.TTL_WORKBENCH_IT_GREP;
  // Mocha 11 turns a string into a RegExp unescaped, so `(issue 21)` would be a group: escape the
  // plain form so it really means "contains".
  if (grep) mocha.grep(/^\/.+\/$/.test(grep) ? new RegExp(grep.slice(1, -1)) : new RegExp(escapeRegExp(grep)));
  const files = fs
    .readdirSync(__dirname)
    .filter((f) => f.endsWith('.test.js'))
    .sort();
  if (files.length === 0) return Promise.reject(new Error(`no *.test.js files in ${__dirname}`));
  for (const f of files) mocha.addFile(path.join(__dirname, f));

  return new Promise((resolve, reject) => {
    try {
      const runner = mocha.run((failures) => {
        const { passes = 0, pending = 0 } = runner.stats ?? {};
        // One plain closing line, relayed as is by the runner.
        console.log(`integration: ${passes} passed, ${failures} failed, ${pending} skipped`);
        if (failures > 0) reject(new Error(`${failures} integration test(s) failed`));
        else if (passes === 0) reject(new Error('no integration test ran'));
        else resolve();
      });
    } catch (e) {
      reject(e instanceof Error ? e : new Error(String(e)));
    }
  });
}

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Asks the runner for a screenshot of the whole workbench (1280x800), or of the part `crop`
 * names, saved as `name` (for example 'screenshot-tree.png') in the runner's screenshot
 * directory, and waits until the file is written. Waits `settleMs` first so the last UI change
 * has rendered. Resolves with the file's path, or undefined where the route cannot take
 * screenshots (desktop VS Code through @vscode/test-electron).
 */
export async function screenshot(name: string, settleMs = 1000, crop?: ScreenshotCrop): Promise<string | undefined> {
  if (!/^[\w.-]+\.png$/.test(name)) throw new Error(`a screenshot name looks like "name.png", not "${name}"`);
  await delay(settleMs);
  const dir = process.env.TTL_WORKBENCH_IT_SCREENSHOT_DIR;
  const askedAt = Date.now();
  // The runner watches the host's console for this.
  console.log(`[screenshot:${name}]${crop ? ` ${JSON.stringify(crop)}` : ''}`);
  if (!dir) return undefined;
  const file = path.join(dir, name);
  while (Date.now() - askedAt < 20_000) {
    try {
      if (fs.statSync(file).mtimeMs >= askedAt) return file;
    } catch {
      // not written yet
    }
    await delay(100);
  }
  throw new Error(`the runner did not save ${file} within 20 s`);
}

/**
 * Crops a screenshot to the box around every shown element `selector` finds, `pad` pixels wider,
 * kept inside the box of the element `within` finds (default: the window).
 */
export interface ScreenshotCrop {
  selector: string;
  pad?: number;
  within?: string;
}

/** One step of a UI request (see test/integration/runner/ui-driver.js). */
export type UiStep =
  | { waitForInput: string }
  | { waitForMessage: string }
  | { waitForClosed: true }
  | { type: string }
  | { press: string }
  /** A click on the first element the CSS selector finds in the workbench. */
  | { click: string }
  /** Waits for an element the selector finds to be shown, holding `text` when given. */
  | { waitForShown: string; text?: string }
  /** Waits until no element the selector finds is shown. */
  | { waitForHidden: string }
  /** The texts (or the `attribute`'s values) of the shown elements the selector finds, in the reply's `reads`. */
  | { read: string; attribute?: string };

/** What a `read` step found. */
export interface UiRead {
  selector: string;
  texts: string[];
}

/** What the quick input shows after a request (null: closed). */
export interface QuickInputState {
  /** The input has the keyboard focus. */
  focused: boolean;
  title: string;
  message: string;
  value: string;
  placeholder: string;
  items: string[];
}

let uiRequests = 0;

/** Whether this route can drive the workbench's quick input (code-server with Playwright). */
export function canDriveUi(): boolean {
  return !!process.env.TTL_WORKBENCH_IT_UI_DIR;
}

/**
 * Has the runner perform `steps` on the real workbench (keyboard into the quick input, waits for
 * a title or a validation message), then resolves with what the quick input shows. Rejects with
 * the runner's error (a wait that timed out names what it waited for).
 */
export async function driveUi(steps: UiStep[]): Promise<QuickInputState | null> {
  return (await driveUiReading(steps)).state;
}

/** As driveUi, and with the texts the request's `read` steps found. */
export async function driveUiReading(steps: UiStep[]): Promise<{ state: QuickInputState | null; reads: UiRead[] }> {
  const dir = process.env.TTL_WORKBENCH_IT_UI_DIR;
  if (!dir) throw new Error('this route cannot drive the UI: check canDriveUi() first');
  const id = ++uiRequests;
  console.log(`[ui:${id}] ${JSON.stringify(steps)}`); // the runner watches the host's console for this
  const file = path.join(dir, `${id}.json`);
  const askedAt = Date.now();
  while (Date.now() - askedAt < 60_000) {
    if (fs.existsSync(file)) {
      const reply = JSON.parse(fs.readFileSync(file, 'utf8')) as {
        ok: boolean;
        error?: string;
        state: QuickInputState | null;
        reads?: UiRead[];
      };
      if (!reply.ok)
        throw new Error(
          `UI request ${JSON.stringify(steps)} failed: ${reply.error} (quick input: ${JSON.stringify(reply.state)})`,
        );
      return { state: reply.state, reads: reply.reads ?? [] };
    }
    await delay(100);
  }
  throw new Error(`the runner did not answer UI request ${id} within 60 s`);
}
