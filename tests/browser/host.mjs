// The game host of `fam serve --db` (docs/host.md), driven in headless
// Chromium against the real server, with three browsers at once: the
// referee creates a game of scenarios/duel.toml on /games/new; the two
// commanders open their links and sign up; Ilse plots Exchange 1 on the
// page's form, Marek uploads a TOML file; Exchange 1 resolves when both
// are in and every page shows its report; in Exchange 2 only Ilse plots
// and the deadline resolves it; each turn directory, downloaded from the
// page, replays byte for byte with `fam resolve`. The public page fits a
// phone; a re-issued link replaces the old one; the referee ends the game.
//
//   node --test tests/browser/host.mjs
//
// FAM_BIN: the fam binary (default target/debug/fam). SHOTS_DIR: where the
// screenshots go (default tests/browser/shots). CHROMIUM: the browser
// (default /usr/bin/chromium).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import { createInterface } from 'node:readline';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const FAM = path.resolve(ROOT, process.env.FAM_BIN || 'target/debug/fam');
const SHOTS = path.resolve(ROOT, process.env.SHOTS_DIR || 'tests/browser/shots');
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const SCENARIO = path.join(ROOT, 'scenarios/duel.toml');
const SEED = '11';
const DEADLINE_S = 30;
const TIMEOUT = 30_000;
// A page sees a change within one poll (3 s); a little more for the server.
const SEEN = 10_000;

let server;
let baseUrl;
let origin;
let browser;
let work;
const contexts = {}; // referee, Ilse, Marek
const pages = {}; // the game page of each, once open
const foreign = []; // requests a page tried to make elsewhere
const errors = []; // script errors on any page
const game = {}; // what the tests learn: links, texts sent

// Starts `fam serve --port 0 --db …` and reads its URL off the first line it prints.
function startServer(db) {
  return new Promise((resolve, reject) => {
    const child = spawn(FAM, ['serve', '--port', '0', '--db', db], { stdio: ['ignore', 'pipe', 'inherit'] });
    const timer = setTimeout(() => reject(new Error('fam serve printed no URL within 30 s')), 30_000);
    child.on('error', reject);
    child.on('exit', (code) => reject(new Error(`fam serve exited (${code}) before printing its URL`)));
    createInterface({ input: child.stdout }).once('line', (line) => {
      clearTimeout(timer);
      const m = /^fam serve: (http:\/\/\S+)/.exec(line.trim());
      if (m) resolve({ child, url: m[1].replace(/\/?$/, '/') });
      else reject(new Error(`unexpected first line from fam serve: ${line}`));
    });
  });
}

async function newContext(name) {
  const context = await browser.newContext({ acceptDownloads: true, viewport: { width: 1280, height: 900 } });
  context.setDefaultTimeout(TIMEOUT);
  // The pages make no request but to their own server.
  await context.route((url) => url.origin !== origin && !/^(data|blob):/.test(url.protocol), (route) => {
    foreign.push(`${name}: ${route.request().url()}`);
    return route.abort();
  });
  contexts[name] = context;
  return context;
}

before(async () => {
  fs.mkdirSync(SHOTS, { recursive: true });
  for (const old of fs.readdirSync(SHOTS)) if (old.startsWith('failed-host-')) fs.rmSync(path.join(SHOTS, old));
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'fam-host-'));
  ({ child: server, url: baseUrl } = await startServer(path.join(work, 'games.db')));
  origin = new URL(baseUrl).origin;
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  for (const name of ['referee', 'Ilse', 'Marek']) await newContext(name);
});

after(async () => {
  if (browser) await browser.close();
  if (server) {
    server.removeAllListeners('exit');
    server.kill();
  }
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

async function openPage(context, url, who) {
  const page = await context.newPage();
  page.on('pageerror', (err) => errors.push(`${who}: ${err.message}`));
  await page.goto(url);
  await page.locator('body[data-ready="true"]').waitFor();
  return page;
}

// Runs a test's steps, keeping a screenshot of every open page when one fails.
async function steps(name, fn) {
  try {
    await fn();
    assert.deepEqual(errors, [], 'no script errors');
    assert.deepEqual(foreign, [], 'no request but to fam serve');
  } catch (err) {
    for (const [who, page] of Object.entries(pages)) {
      if (!page.isClosed()) await page.screenshot({ path: path.join(SHOTS, `failed-host-${name}-${who}.png`), fullPage: true }).catch(() => {});
    }
    if (errors.length) err.message += `\nscript errors on the pages: ${errors.join('; ')}`;
    throw err;
  }
}

// Saves what a click on the locator downloads; returns the file's path.
async function download(page, locator, dir) {
  const [dl] = await Promise.all([page.waitForEvent('download'), locator.click()]);
  const to = path.join(dir, dl.suggestedFilename());
  await dl.saveAs(to);
  return to;
}

const text = (page, testid) => page.getByTestId(testid).textContent();

// Opens a folded report (the page folds all but the newest).
async function unfold(page, testid) {
  const fold = page.getByTestId(testid);
  if (!(await fold.evaluate((el) => el.open))) await fold.locator(':scope > summary').click();
}

test('the referee creates a game of the duel on /games/new and gets one link per commander', { timeout: 2 * TIMEOUT }, async () => {
  const page = await openPage(contexts.referee, `${baseUrl}games/new`, 'new');
  pages.new = page;
  await steps('new', async () => {
    // A scenario fam refuses: the reasons are shown, with their lines.
    const broken = fs.readFileSync(SCENARIO, 'utf8').replace('Watch = ["KRD Long Watch"]', 'Watch = ["KRD No Such Ship"]');
    await page.getByTestId('scenario-file').setInputFiles({ name: 'duel.toml', mimeType: 'text/plain', buffer: Buffer.from(broken) });
    await page.getByTestId('create').click();
    const refusal = page.getByTestId('create-errors').locator('.field-error');
    await refusal.waitFor();
    assert.match(await refusal.textContent(), /KRD No Such Ship/);
    assert.match(await refusal.textContent(), /\.toml:\d+:\d+/, 'where, as file:line:column');

    // The duel itself: its ship records are in fam's library, so the
    // scenario alone is enough.
    await page.getByTestId('scenario-file').setInputFiles(SCENARIO);
    await page.getByTestId('seed').fill(SEED);
    await page.getByTestId('deadline').fill(`${DEADLINE_S}s`);
    await page.getByTestId('create').click();
    await page.getByTestId('referee-link').waitFor();
    const link = new RegExp(`^${origin.replace(/[.]/g, '\\.')}/games/([^/#?]+)#[^#?&\\s]{16,}$`);
    game.referee = await page.getByTestId('referee-link').inputValue();
    game.Ilse = await page.getByTestId('commander-link-Ilse').inputValue();
    game.Marek = await page.getByTestId('commander-link-Marek').inputValue();
    for (const who of ['referee', 'Ilse', 'Marek']) assert.match(game[who], link, `${who}'s link`);
    game.id = link.exec(game.referee)[1];
    assert.equal(new Set([game.referee, game.Ilse, game.Marek]).size, 3, 'three different links');
    for (const who of ['Ilse', 'Marek']) assert.equal(link.exec(game[who])[1], game.id);
    game.public = `${origin}/games/${game.id}`;
    await page.screenshot({ path: path.join(SHOTS, 'host-new.png'), fullPage: true });
    await page.close();
    delete pages.new;
  });
});

async function signUp(page, name) {
  await page.getByTestId('signup-name').fill(name);
  await page.getByTestId('signup').click();
}

test('both commanders sign up; Exchange 1 resolves when both plots are in, one from the form, one uploaded', { timeout: 2 * TIMEOUT }, async () => {
  assert.ok(game.id, 'the first test created a game');
  pages.referee = await openPage(contexts.referee, game.referee, 'referee');
  pages.Ilse = await openPage(contexts.Ilse, game.Ilse, 'Ilse');
  pages.Marek = await openPage(contexts.Marek, game.Marek, 'Marek');
  const { referee, Ilse, Marek } = pages;
  await steps('exchange-1', async () => {
    assert.match(await text(referee, 'status'), /^In signup/);
    assert.equal(await referee.getByTestId('referee-panel').isVisible(), true);
    // Marek signs up first and waits; Ilse's sign-up starts the game.
    await signUp(Marek, 'Bo');
    await Marek.getByTestId('waiting-signup').waitFor();
    await signUp(Ilse, 'Ann');
    await Ilse.getByTestId('orders-form').waitFor();
    await Marek.getByTestId('orders-form').waitFor({ timeout: SEEN });
    assert.match(await text(Ilse, 'orders-heading'), /Exchange 1$/);
    assert.match(await text(Ilse, 'who'), /You command Ilse as Ann/);
    // The deadline runs from here: the referee's page is checked once
    // both plots are in.

    // Ilse, on the form: one table for all three Volleys, Evasion 2 (Speed
    // follows: 4), and the template's fire orders as they are.
    const template = await text(Ilse, 'template');
    assert.match(template, /^commander = "Ilse"$/m);
    const tables = (template.match(/^\[\[plot\.Heading\.volley\]\]$/gm) || []).length;
    assert.ok(tables === 1 || tables === 3, template);
    assert.equal(await Ilse.getByTestId('same-Heading').isChecked(), tables === 1, 'the form starts as the template is written');
    await Ilse.getByTestId('same-Heading').check();
    await Ilse.getByTestId('evasion-Heading-0').fill('2');
    assert.equal(await Ilse.getByTestId('speed-Heading-0').inputValue(), '4', 'Speed + Evasion stay the Formation Thrust');
    await Ilse.getByTestId('submit-plot').click();
    await Ilse.getByTestId('plot-accepted').waitFor();
    game.ilse1 = await text(Ilse, 'my-plot');
    assert.match(game.ilse1, /^commander = "Ilse"\nscenario = "scenario\.toml"\n/);
    assert.equal((game.ilse1.match(/^\[\[plot\.Heading\.volley\]\]$/gm) || []).length, 1, game.ilse1);
    assert.match(game.ilse1, /^speed = 4\nevasion = 2$/m);
    assert.match(await text(Ilse, 'plot-status'), /Your plot is in/);

    // Marek uploads the template with an edit; first with a mistake, which
    // is refused with fam's reasons in words, and kept out.
    const mine = await text(Marek, 'template');
    const m = /^speed = (\d+)\nevasion = (\d+)$/m.exec(mine);
    assert.ok(m, mine);
    const thrust = Number(m[1]) + Number(m[2]);
    const wrong = mine.replace(m[0], `speed = ${thrust - 5}\nevasion = 5`);
    await Marek.getByTestId('upload-plot').setInputFiles({ name: 'marek.toml', mimeType: 'text/plain', buffer: Buffer.from(wrong) });
    const refusal = Marek.getByTestId('refusal');
    await refusal.waitFor();
    assert.match(await refusal.textContent(), /Evasion/);
    assert.match(await refusal.getByTestId('refusal-list').textContent(), /line \d+:\d+/);
    assert.match(await refusal.getByTestId('rendered').textContent(), /error/);
    await Marek.screenshot({ path: path.join(SHOTS, 'host-refused.png'), fullPage: true });
    assert.match(await text(Marek, 'plot-status'), /No plot yet/);
    const evasion = Number(m[2]) === 0 ? 1 : Number(m[2]) - 1;
    game.marek1 = mine.replace(m[0], `speed = ${thrust - evasion}\nevasion = ${evasion}`);
    await Marek.getByTestId('upload-plot').setInputFiles({ name: 'marek.toml', mimeType: 'text/plain', buffer: Buffer.from(game.marek1) });

    // Both in: the Exchange resolves, and every page shows its report.
    for (const page of [Marek, Ilse, referee]) await page.getByTestId('report-1').waitFor({ timeout: SEEN });
    for (const page of [Ilse, referee]) assert.equal(await page.getByTestId('trigger-1').getAttribute('data-trigger'), 'all plots in');
    game.report1 = await text(referee, 'report-1');
    assert.match(game.report1, /Exchange 1/);
    for (const page of [Ilse, Marek]) assert.equal(await text(page, 'report-1'), game.report1);
    await Ilse.getByTestId('orders-heading').filter({ hasText: 'Exchange 2' }).waitFor({ timeout: SEEN });
    await Marek.getByTestId('orders-heading').filter({ hasText: 'Exchange 2' }).waitFor({ timeout: SEEN });
    assert.match(await text(referee, 'status'), /^In progress: Exchange 2/);
    assert.equal(await text(referee, 'side-status-0'), 'signed up as Ann');
    assert.equal(await text(referee, 'side-status-1'), 'signed up as Bo');
    await Ilse.screenshot({ path: path.join(SHOTS, 'host-commander.png'), fullPage: true });
  });
});

test('Exchange 2: only Ilse plots, and the deadline resolves it with Marek on his template', { timeout: 3 * TIMEOUT }, async () => {
  assert.ok(game.report1, 'Exchange 1 resolved');
  const { referee, Ilse, Marek } = pages;
  await steps('exchange-2', async () => {
    assert.match(await text(Ilse, 'deadline'), /^Deadline /);
    await Ilse.getByTestId('submit-plot').click();
    await Ilse.getByTestId('plot-accepted').waitFor();
    game.ilse2 = await text(Ilse, 'my-plot');
    await referee.getByTestId('ref-submitted-0').filter({ hasText: '✓' }).waitFor({ timeout: SEEN });
    assert.equal(await text(referee, 'ref-submitted-1'), 'not yet');
    // Everyone sees who has plotted, never what.
    await Marek.getByTestId('submitted-0').filter({ hasText: '✓' }).waitFor({ timeout: SEEN });
    assert.doesNotMatch(await text(Marek, 'submitted-1'), /✓/);
    assert.doesNotMatch(await Marek.locator('body').innerText(), /evasion = /, 'no plot of Ilse on Marek’s page');
    await referee.getByTestId('plot-of-0').filter({ hasText: 'commander = "Ilse"' }).waitFor({ timeout: SEEN });
    assert.equal(await text(referee, 'plot-of-0'), game.ilse2, 'the referee reads the plot Ilse sent');
    await referee.screenshot({ path: path.join(SHOTS, 'host-referee.png'), fullPage: true });

    // Nobody else plots: the deadline resolves it.
    const wait = (DEADLINE_S + 15) * 1000;
    for (const page of [Marek, Ilse, referee]) await page.getByTestId('report-2').waitFor({ timeout: wait });
    for (const page of [Marek, Ilse, referee]) {
      assert.equal(await page.getByTestId('trigger-2').getAttribute('data-trigger'), 'deadline');
      assert.match(await text(page, 'trigger-2'), /deadline passed: a side without a plot played its orders template/);
    }
    game.report2 = await text(referee, 'report-2');
    assert.equal(await Ilse.getByTestId('turn-2').evaluate((el) => el.open), true, 'the newest report is open');
    assert.equal(await Ilse.getByTestId('turn-1').evaluate((el) => el.open), false, 'older reports are folded');
  });
});

test('each turn directory downloads from the page and replays byte for byte with fam resolve', { timeout: 2 * TIMEOUT }, async () => {
  assert.ok(game.report2, 'Exchange 2 resolved');
  const { Ilse } = pages;
  await steps('replay', async () => {
    for (const [k, report] of [[1, game.report1], [2, game.report2]]) {
      const dir = fs.mkdtempSync(path.join(work, `turn-${k}-`));
      await unfold(Ilse, `turn-${k}`);
      const tar = await download(Ilse, Ilse.getByTestId(`download-turn-${k}`), dir);
      execFileSync('tar', ['-xf', tar, '-C', dir]);
      const turn = path.join(dir, `exchange-${k}`);
      const files = fs.readdirSync(turn);
      for (const f of ['scenario.toml', 'orders-Ilse.toml', 'orders-Marek.toml', 'report.txt', 'log.jsonl', 'README.txt']) {
        assert.ok(files.includes(f), `exchange-${k}/ holds ${f}: ${files.join(', ')}`);
      }
      const readme = fs.readFileSync(path.join(turn, 'README.txt'), 'utf8');
      assert.ok(readme.includes('fam resolve scenario.toml --orders orders-Ilse.toml --orders orders-Marek.toml'), readme);
      const ordersOf = (side) => fs.readFileSync(path.join(turn, `orders-${side}.toml`), 'utf8');
      if (k === 1) {
        assert.equal(ordersOf('Ilse'), game.ilse1, 'Exchange 1 played the plot Ilse made on the form');
        assert.equal(ordersOf('Marek'), game.marek1, 'Exchange 1 played the file Marek uploaded');
      } else {
        assert.equal(ordersOf('Ilse'), game.ilse2);
        assert.match(ordersOf('Marek'), /^# Orders template/, 'Marek, without a plot, played his template');
      }
      const stdout = execFileSync(FAM, ['resolve', 'scenario.toml', '--orders', 'orders-Ilse.toml', '--orders', 'orders-Marek.toml', '--log', 'log.new'], { cwd: turn });
      assert.ok(stdout.equals(fs.readFileSync(path.join(turn, 'report.txt'))), `Exchange ${k}: fam resolve prints report.txt`);
      assert.ok(fs.readFileSync(path.join(turn, 'log.new')).equals(fs.readFileSync(path.join(turn, 'log.jsonl'))), `Exchange ${k}: the same log`);
      assert.equal(stdout.toString('utf8'), report, `Exchange ${k}: the page shows the report`);
    }
  });
});

test('the public page fits a phone, shows the picture and links the feed', { timeout: TIMEOUT }, async () => {
  assert.ok(game.report2, 'two Exchanges resolved');
  const page = await contexts.referee.newPage();
  page.on('pageerror', (err) => errors.push(`public: ${err.message}`));
  pages.public = page;
  await steps('public', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(game.public);
    await page.locator('body[data-ready="true"]').waitFor();
    assert.match(await text(page, 'who'), /You are watching/);
    assert.equal(await page.getByTestId('me-panel').isVisible(), false);
    assert.equal(await page.getByTestId('referee-panel').isVisible(), false);
    assert.equal(await page.getByTestId('download-turn-1').count(), 0, 'no downloads without a link');
    assert.ok(await page.getByTestId('turn-2').count(), 'the reports are shown');
    assert.equal(await page.getByTestId('chart-svg').count(), 1, 'the picture is drawn');
    assert.ok(await page.getByTestId('units').locator('tbody tr').count() >= 2, 'each Unit has a row');
    assert.match(await text(page, 'side-0'), /Ilse: Ann/);
    assert.match(await text(page, 'side-1'), /Marek: Bo/);
    const feed = await page.getByTestId('feed-link').getAttribute('href');
    assert.equal(feed, `/games/${game.id}/feed.atom`);
    const atom = await (await fetch(`${origin}${feed}`)).text();
    assert.equal((atom.match(/<entry>/g) || []).length, 2, atom);
    for (const fold of await page.locator('details.turn').all()) if (!(await fold.evaluate((el) => el.open))) await fold.locator('summary').click();
    const [scrollWidth, clientWidth] = await page.evaluate(() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]);
    assert.ok(scrollWidth <= clientWidth, `no horizontal page scroll: ${scrollWidth} > ${clientWidth}`);
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: path.join(SHOTS, 'host-phone.png') });
  });
});

test('the referee re-issues a link (the old one stops working) and ends the game', { timeout: 2 * TIMEOUT }, async () => {
  assert.ok(game.report2, 'two Exchanges resolved');
  const { referee, Marek } = pages;
  await steps('referee', async () => {
    await referee.getByTestId('reissue-1').click();
    const fresh = await referee.getByTestId('new-link-1').inputValue();
    assert.match(fresh, new RegExp(`^${origin.replace(/[.]/g, '\\.')}/games/${game.id}#`));
    assert.notEqual(fresh, game.Marek);
    await Marek.reload();
    await Marek.locator('body[data-ready="true"]').waitFor();
    await Marek.getByTestId('token-error').waitFor();
    assert.equal(await Marek.getByTestId('me-panel').isVisible(), false);
    await Marek.close();
    pages.Marek = await openPage(contexts.Marek, fresh, 'Marek');
    assert.match(await text(pages.Marek, 'who'), /You command Marek as Bo/);

    await referee.getByTestId('end-reason').fill('the test is over');
    await referee.getByTestId('end-game').click();
    await referee.getByTestId('end-game').click(); // the second click confirms
    await referee.getByTestId('status').filter({ hasText: /^Completed/ }).waitFor();
    assert.match(await text(referee, 'status'), /the test is over/);
    await pages.Marek.getByTestId('status').filter({ hasText: /^Completed/ }).waitFor({ timeout: SEEN });
  });
});
