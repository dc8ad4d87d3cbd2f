/**
 * package.json and the code agree: every contributed command is registered and vice versa, is lazily
 * activated, menus name existing commands, and every `viewItem` word a `when` clause tests is one
 * the tree's contextValues carry.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { CollectionInfo, IndexInfo, MonitorInfo } from '../../../src/extension/backend/backend';
import {
  presentCollection,
  presentCollectionTTL,
  presentDatabase,
  presentEngine,
  presentIndex,
  presentMonitor,
  presentProblem,
  presentProblems,
} from '../../../src/extension/tree/presentation';
import { presentConnection, presentServer } from '../../../src/extension/tree/connection-presentation';

const root = path.resolve(__dirname, '..', '..', '..', '..');
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));

/** The files the walkthrough's steps show (markdown pages, images): they ship, or the steps show nothing. */
function walkthroughMedia(): string[] {
  const manifest = pkg as {
    contributes: { walkthroughs?: Array<{ steps: Array<{ media: Record<string, unknown> }> }> };
  };
  const files: string[] = [];
  for (const w of manifest.contributes.walkthroughs ?? [])
    for (const step of w.steps)
      for (const key of ['markdown', 'svg', 'image']) {
        const v = step.media[key];
        // An image is a path, or one per theme ({light, dark, hc}).
        if (typeof v === 'string') files.push(v);
        else if (v && typeof v === 'object')
          files.push(...Object.values(v).filter((x): x is string => typeof x === 'string'));
      }
  return files;
}

function registeredIds(): string[] {
  const ids: string[] = [];
  for (const dir of [
    path.join(root, 'src', 'extension', 'commands'),
    path.join(root, 'src', 'extension', 'notebook'),
  ]) {
    for (const f of fs.readdirSync(dir)) {
      if (!f.endsWith('.ts')) continue;
      const text = fs.readFileSync(path.join(dir, f), 'utf8');
      for (const m of text.matchAll(/id: '(ttlWorkbench\.[A-Za-z]+)'/g)) ids.push(m[1]);
    }
  }
  return ids.sort();
}

function contextWords(): Set<string> {
  const coll = (kind: CollectionInfo['kind'], options = {}): CollectionInfo => ({
    db: 'a',
    name: 'c',
    type: 'collection',
    kind,
    options,
    count: 0,
  });
  const ix = (spec: Record<string, unknown>, stored?: IndexInfo['stored']): IndexInfo => ({
    db: 'a',
    collection: 'c',
    name: String(spec.name),
    spec,
    ...(stored ? { stored } : {}),
  });
  const monitor = (enabled: boolean): MonitorInfo => ({
    enabled,
    sleepSecs: 60,
    lastPassAt: null,
    nextPassAt: null,
    stoppedBecause: null,
    passes: 0,
    subPasses: 0,
    deletedDocuments: 0,
    lastPassDeleted: null,
    deletedSinceActivation: 0,
    parameters: {},
  });
  const problem = {
    db: 'a',
    collection: 'c',
    index: 'i',
    key: { t: 1 },
    expireAfterSeconds: NaN,
    problem: 'NaN' as const,
  };
  const values = [
    presentEngine(
      { kind: 'embedded', label: 'E', flavor: 'mongodb', serverVersion: '8.0', version: '8.0.4' },
      { mode: 'virtual', now: new Date(0), aheadMs: 0, canAdvance: true },
    ),
    presentMonitor(monitor(true), new Date(0)),
    presentMonitor(monitor(false), new Date(0)),
    presentDatabase('a'),
    ...(['plain', 'capped', 'timeseries', 'clustered'] as const).map((k) =>
      presentCollection(coll(k, { expireAfterSeconds: 1 })),
    ),
    presentCollectionTTL(coll('clustered'), 60),
    presentIndex(ix({ key: { _id: 1 }, name: '_id_' }), coll('plain')),
    presentIndex(ix({ key: { t: 1 }, name: 't_1', expireAfterSeconds: 60 }), coll('plain')),
    presentIndex(ix({ key: { t: 1 }, name: 't_1', expireAfterSeconds: 60, hidden: true }), coll('plain')),
    presentIndex(ix({ key: { t: 1 }, name: 't_1' }), coll('plain')),
    presentIndex(
      ix({ key: { t: 1 }, name: 't_1', expireAfterSeconds: 2147483647 }, { expireAfterSeconds: NaN, problem: 'NaN' }),
      coll('plain'),
    ),
    presentProblems([problem]),
    presentProblem(problem),
    presentServer(
      { kind: 'driver', label: 'prod', flavor: 'mongodb', serverVersion: '8.0', version: '8.0.4' },
      { mode: 'system', now: new Date(0), aheadMs: 0, canAdvance: false },
      true,
    ),
    presentConnection({ name: 'prod', production: false }),
  ];
  return new Set(values.flatMap((p) => p.contextValue.split(' ')));
}

describe('package.json manifest', () => {
  it('contributes exactly the commands the code registers, in the TTL Workbench category', () => {
    const contributed = (pkg.contributes.commands as Array<{ command: string; category: string }>)
      .map((c) => c.command)
      .sort();
    assert.deepEqual(contributed, registeredIds());
    for (const c of pkg.contributes.commands) assert.equal(c.category, 'TTL Workbench');
  });

  it('activates on the view, the languages the analysis serves and playground notebooks only', () => {
    // onCommand events are inferred by VS Code (1.74+) from contributes.commands; main.ts stands
    // in for each command until the engine starts.
    assert.deepEqual(pkg.activationEvents, [
      'onView:ttlWorkbench.databases',
      'onLanguage:javascript',
      'onLanguage:javascriptreact',
      'onLanguage:typescript',
      'onLanguage:typescriptreact',
      'workspaceContains:**/*.ttlbook',
      'onNotebook:ttl-workbench-playground',
      'onLanguage:ttl-mongosh',
    ]);
  });

  it('names existing commands in menus and only contextValue words the tree produces', () => {
    const ids = new Set(registeredIds());
    const words = contextWords();
    for (const [menu, items] of Object.entries(
      pkg.contributes.menus as Record<string, Array<{ command: string; when?: string }>>,
    )) {
      for (const item of items) {
        assert.ok(ids.has(item.command), `${menu}: unknown command ${item.command}`);
        for (const m of (item.when ?? '').matchAll(/viewItem =~ \/\\b(\w+)\\b\//g))
          assert.ok(words.has(m[1]), `${menu}: no tree item has the contextValue word "${m[1]}"`);
      }
    }
  });

  it('declares the view, its container icon, the settings and the VS Code engine', () => {
    assert.equal(pkg.contributes.viewsContainers.activitybar[0].icon, 'media/ttl-workbench.svg');
    assert.ok(fs.existsSync(path.join(root, 'media', 'ttl-workbench.svg')));
    assert.ok(fs.existsSync(path.join(root, pkg.icon)));
    assert.equal(pkg.contributes.views.ttlWorkbench[0].id, 'ttlWorkbench.databases');
    const props = pkg.contributes.configuration.properties;
    assert.deepEqual(props['ttlWorkbench.clock'].enum, ['virtual', 'system']);
    assert.deepEqual(props['ttlWorkbench.flavor'].enum, ['mongodb', 'cosmos']);
    assert.deepEqual(props['ttlWorkbench.serverVersion'].enum, ['8.0', '7.0']);
    assert.equal(props['ttlWorkbench.confirmExpiryAbove'].default, 1000);
    assert.equal(pkg.engines.vscode, '^1.95.0');
    assert.equal(pkg.devDependencies['@types/vscode'], '1.95.0', '@types/vscode must match engines.vscode');
    assert.equal(pkg.main, './dist/extension.js');
  });

  it('packages dist/extension.js and leaves node_modules out of the .vsix', () => {
    const ignore = fs
      .readFileSync(path.join(root, '.vscodeignore'), 'utf8')
      .split('\n')
      .map((l) => l.trim());
    assert.ok(ignore.includes('**'));
    assert.ok(ignore.includes('!dist/extension.js'));
    assert.ok(ignore.includes('!dist/engine-host.js'), 'the engine host worker ships beside the extension');
    assert.ok(!ignore.some((l) => l.startsWith('!node_modules')));
  });

  it('npm run package builds a .vsix of exactly the shipped files, within its size budget', () => {
    const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ttl-vsix-')), 'ttl-workbench.vsix');
    const r = spawnSync('npm', ['run', 'package', '--', '--out', out], {
      cwd: root,
      encoding: 'utf8',
      shell: process.platform === 'win32',
    });
    assert.equal(r.status, 0, `npm run package failed:\n${r.stdout}\n${r.stderr}`);
    const listed = spawnSync('npx', ['vsce', 'ls', '--no-dependencies'], {
      cwd: root,
      encoding: 'utf8',
      shell: process.platform === 'win32',
    });
    assert.equal(listed.status, 0, listed.stderr);
    const files = listed.stdout
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean)
      .sort();
    const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
    const expected = [
      'package.json',
      'README.md',
      'LICENSE',
      'CHANGELOG.md',
      // The light bundle activation loads, the one the first need for data loads, the engine
      // host's worker, the notebook renderers (documents, the forecast chart) and the chart panels'
      // page (uPlot inside both of the last two).
      'dist/extension.js',
      'dist/workbench.js',
      // The official driver, loaded on the first saved connection, and mongosh's runtime, loaded on
      // the first notebook cell on a connection (issue 21).
      'dist/driver.js',
      'dist/mongosh.js',
      'dist/engine-host.js',
      'dist/renderer.js',
      'dist/forecast-renderer.js',
      'dist/forecast-view.js',
      'dist/forecast-view.css',
      'syntaxes/ttl-mongosh.tmLanguage.json',
      'syntaxes/ttl-mongosh.language-configuration.json',
      'media/icon.png',
      'media/ttl-workbench.svg',
      // "Open Example Playgrounds" reads every example; README's relative links (its images, the
      // TTL rules) resolve inside the installed extension.
      ...fs.readdirSync(path.join(root, 'examples')).map((f) => `examples/${f}`),
      ...new Set([...readme.matchAll(/\]\(([^)#:]+)\)/g)].map((m) => m[1])),
      // The walkthrough's step pages (and images, if a step has one).
      ...new Set(walkthroughMedia()),
    ].sort();
    const missing = expected.filter((f) => !files.includes(f));
    const unexpected = files.filter((f) => !expected.includes(f));
    assert.deepEqual(
      { missing, unexpected },
      { missing: [], unexpected: [] },
      'the .vsix ships exactly what the extension uses: mend .vscodeignore (an allow-list) or this list',
    );
    // Measured at 861 KB when the budget was set at 900 (the three bundles minified are most of it);
    // 909 KB after the aggregation stages (the engine ships in both workbench.js, the in-thread
    // backend, and engine-host.js, the worker, so every engine feature counts twice: sharing one
    // engine bundle would win back about a third), raised to 1,000; then 954 KB with the forecast
    // panel (uPlot) and about 1,120 KB with its two README screenshots, raised to 1,150 for them;
    // 1,156 KB with issue 26.4's validators ($jsonSchema, error details), validate and views
    // (engine code, so it counts twice), raised to 1,200; 1,389 KB with the official mongodb driver
    // for connections to real deployments (issue 21: dist/workbench.js 934 KB -> 1,797 KB
    // minified, the driver and whatwg-url; its native add-ons stay out), raised to 1,450; 1,436 KB
    // once the driver became its own dist/driver.js (workbench.js back to 939 KB; the driver bundle
    // carries its own copy of bson, about 47 KB in the .vsix); 3,234 KB with mongosh's runtime for
    // notebooks on a connection (dist/mongosh.js, 6.1 MB minified, loaded only for such a cell: its
    // connection helper brings OIDC's local redirect server (express, body-parser, iconv tables) and
    // PAC proxy support (quickjs), about 3 MB of it), raised to 3,300; 2,461 KB once those two are
    // replaced at build time by refusals (scripts/lib/mongosh-trims.js: dist/mongosh.js 6,206 KB ->
    // 3,453 KB minified, its first require about 2.2 s -> 1.6 s here), lowered to 2,550; 2,569 KB
    // after session 15's engine fidelity work (about 2,500 lines of engine source: plan-cache
    // filters, checked index scans, explain modules, splitVector, log verbosity, PCRE verbs, the
    // element hash), which ships twice (workbench.js and engine-host.js), raised to 2,600.
    const BUDGET_KB = 2600;
    const kb = fs.statSync(out).size / 1024;
    assert.ok(
      kb <= BUDGET_KB,
      `the .vsix is ${kb.toFixed(0)} KB, over its budget of ${BUDGET_KB} KB: find what grew with esbuild's metafile before raising the budget`,
    );
  });
});

describe('first run: walkthrough, empty states, Restricted Mode (issue 19)', () => {
  const commandLinks = (text: string) => [...text.matchAll(/\(command:([\w.]+)\)/g)].map((m) => m[1]);
  const contributed = new Set((pkg.contributes.commands as Array<{ command: string }>).map((c) => c.command));

  it('every walkthrough step completes on a real action: a contributed command, the Databases view, or the quick-fix context key', () => {
    const [walkthrough] = pkg.contributes.walkthroughs as Array<{
      id: string;
      steps: Array<{
        id: string;
        description: string;
        completionEvents: string[];
        media: { markdown?: string; image?: string; altText?: string };
      }>;
    }>;
    assert.equal(walkthrough.id, 'gettingStarted');
    for (const step of walkthrough.steps) {
      assert.ok(step.completionEvents.length > 0, step.id);
      for (const event of step.completionEvents) {
        const [kind, target] = event.split(/:(.*)/s);
        if (kind === 'onCommand') assert.ok(contributed.has(target), `${step.id}: ${target} is contributed`);
        else if (kind === 'onView') assert.equal(target, 'ttlWorkbench.databases');
        else assert.equal(event, 'onContext:ttlWorkbench.quickFixApplied', step.id);
      }
      for (const link of commandLinks(step.description))
        assert.ok(contributed.has(link) || link === 'ttlWorkbench.databases.focus', `${step.id}: ${link}`);
      const media = step.media.markdown ?? step.media.image;
      assert.ok(media && fs.existsSync(path.join(root, media)), `${step.id}: ${media}`);
      // A screenshot taken in the real host: 1x, cropped, and said in words for screen readers.
      if (step.media.image) assert.ok(step.media.altText, `${step.id}: altText`);
    }
  });

  it('the quick-fix step waits for the context key the quick fixes set, and the palette opens the walkthrough', () => {
    const actions = fs.readFileSync(path.join(root, 'src/extension/analysis/code-actions.ts'), 'utf8');
    assert.match(actions, /command: QUICK_FIX_APPLIED_COMMAND/);
    const walkthrough = fs.readFileSync(path.join(root, 'src/extension/commands/walkthrough.ts'), 'utf8');
    assert.match(walkthrough, /'setContext', 'ttlWorkbench\.quickFixApplied', true/);
    assert.match(walkthrough, /`\$\{context\.extension\.id\}#\$\{WALKTHROUGH_ID\}`/);
  });

  it('the Databases view has an empty state for an empty engine and one for a read-only folder, each with working buttons', () => {
    const welcome = pkg.contributes.viewsWelcome as Array<{ view: string; contents: string; when: string }>;
    assert.deepEqual(
      welcome.map((w) => [w.view, w.when]),
      [
        ['ttlWorkbench.databases', '!ttlWorkbench.storageReadOnly'],
        ['ttlWorkbench.databases', 'ttlWorkbench.storageReadOnly'],
      ],
    );
    assert.deepEqual(commandLinks(welcome[0].contents), [
      'ttlWorkbench.insertSampleDocuments',
      'ttlWorkbench.newPlayground',
      'ttlWorkbench.openExamplePlaygrounds',
      'ttlWorkbench.openWalkthrough',
    ]);
    for (const w of welcome) for (const link of commandLinks(w.contents)) assert.ok(contributed.has(link), link);
    assert.match(welcome[1].contents, /read-only/);
  });

  it('declares limited support for untrusted workspaces, restricting the settings that reach workspace files', () => {
    const untrusted = pkg.capabilities.untrustedWorkspaces;
    assert.equal(untrusted.supported, 'limited');
    assert.match(untrusted.description, /Restricted Mode/);
    const settings = Object.keys(pkg.contributes.configuration.properties);
    for (const s of untrusted.restrictedConfigurations) assert.ok(settings.includes(s), s);
    assert.ok(untrusted.restrictedConfigurations.includes('ttlWorkbench.storage'));
  });
});
