// The odds calculator page of `fam serve`, driven in headless Chromium
// against the real server: a battle built by clicking gives exactly the odds
// `fam batch` prints for the scenario the page downloads, and its share link
// brings the same battle and the same numbers back; Compare, Tune and Both
// sides play their best show what `fam compare`, `fam tune` and `fam solve`
// print.
//
//   node --test tests/browser/odds.mjs
//
// FAM_BIN: the fam binary (default target/debug/fam). SHOTS_DIR: where the
// screenshots go (default tests/browser/shots). DOCS_SHOT=1 also writes the
// README's picture, docs/serve.png. CHROMIUM: the browser (default
// /usr/bin/chromium).
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
const RUNS = 200;
const SEED = '7';
const BLUE = { side: 'Ilse', file: 'meridian-compact.gzf', ships: ['MCS Clear Heading', 'MCS Small Hours'] };
const RED = { side: 'Marek', file: 'kestrel-reach.gzf', ships: ['KRD Long Watch', 'KRD Sharp Descent'] };
const TIMEOUT = 60_000;

let server;
let baseUrl;
let context;
let profile;
let work;
const foreign = []; // requests the page tried to make elsewhere
let first; // what the first test read off the page: the odds and the share link

// Starts `fam serve --port 0` and reads its URL off the first line it prints.
function startServer() {
  return new Promise((resolve, reject) => {
    const child = spawn(FAM, ['serve', '--port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
    const timer = setTimeout(() => reject(new Error('fam serve printed no URL within 30 s')), 30_000);
    child.on('error', reject);
    child.on('exit', (code) => reject(new Error(`fam serve exited (${code}) before printing its URL`)));
    createInterface({ input: child.stdout }).once('line', (line) => {
      clearTimeout(timer);
      const m = /^fam serve: (http:\/\/\S+)$/.exec(line.trim());
      if (m) resolve({ child, url: m[1] });
      else reject(new Error(`unexpected first line from fam serve: ${line}`));
    });
  });
}

before(async () => {
  fs.mkdirSync(SHOTS, { recursive: true });
  for (const old of fs.readdirSync(SHOTS)) if (old.startsWith('failed-')) fs.rmSync(path.join(SHOTS, old));
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'fam-browser-'));
  profile = path.join(work, 'profile');
  ({ child: server, url: baseUrl } = await startServer());
  context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    acceptDownloads: true,
    viewport: { width: 1280, height: 900 },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  context.setDefaultTimeout(TIMEOUT);
  // The page makes no request but to its own server.
  await context.route((url) => !url.href.startsWith(baseUrl) && !/^(data|blob):/.test(url.protocol), (route) => {
    foreign.push(route.request().url());
    return route.abort();
  });
});

after(async () => {
  if (context) await context.close();
  if (server) {
    server.removeAllListeners('exit');
    server.kill();
  }
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

async function openPage(url) {
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (err) => errors.push(err.message));
  await page.goto(url);
  await page.locator('body[data-ready="true"]').waitFor();
  return { page, errors };
}

// Runs a test's steps on a page, keeping a screenshot of the page when one fails.
async function onPage(url, name, steps) {
  const { page, errors } = await openPage(url);
  try {
    await steps(page);
    assert.deepEqual(errors, [], 'no script errors');
    assert.deepEqual(foreign, [], 'no request but to fam serve');
  } catch (err) {
    await page.screenshot({ path: path.join(SHOTS, `failed-${name}.png`), fullPage: true }).catch(() => {});
    if (errors.length) err.message += `\nscript errors on the page: ${errors.join('; ')}`;
    throw err;
  } finally {
    await page.close();
  }
}

async function rename(page, testid, name) {
  const input = page.getByTestId(testid);
  await input.fill(name);
  await input.press('Tab'); // commits the name (a change event)
}

// Opens a folded part of the page (rule switches, a Formation's orders).
async function unfold(page, testid) {
  const fold = page.getByTestId(testid);
  if (!(await fold.evaluate((el) => el.open))) await fold.locator(':scope > summary').click();
}

async function addShips(page, pick, team) {
  await page.getByTestId(pick).click();
  const file = page.getByTestId(`file:${team.file}`);
  if (!(await file.evaluate((el) => el.open))) await file.locator('summary').click();
  for (const ship of team.ships) await file.getByRole('button', { name: `Add ${ship}` }).click();
}

async function buildBattle(page) {
  await rename(page, 'title', 'Skirmish off the Reach');
  await rename(page, 'side-name-0', BLUE.side);
  await rename(page, 'side-name-1', RED.side);
  await rename(page, 'formation-name-0-0', 'Meridian');
  await rename(page, 'formation-name-1-0', 'Kestrel');
  await addShips(page, 'pick-0-0', BLUE);
  await addShips(page, 'pick-1-0', RED);
  await page.getByTestId('start-range').fill('36');
  await page.getByTestId('start-range').press('Tab');
  await unfold(page, 'orders-1-0');
  await page.getByTestId('default-doctrine-1-0').uncheck();
  await page.getByTestId('doctrine-maneuver-1-0').selectOption('close');
  await page.getByTestId('doctrine-evasion-1-0').selectOption('max');
  await page.getByTestId('doctrine-damage_control-1-0').fill('fire_control, beam');
  await page.getByTestId('doctrine-damage_control-1-0').press('Tab');
  // A rule switch players disagree on, set away from fam's reading.
  await unfold(page, 'rules-fold');
  await page.getByTestId('rule-double_drive_check').check();
  // A victory condition beyond the Exchange limit and morale.
  await page.getByTestId('add-condition').click();
  await page.getByTestId('condition-0-unit').selectOption(RED.ships[0]);
  await page.getByTestId('condition-0-winner').selectOption(BLUE.side);
}

// Clicks Run and reads the odds off the page once the batch is done.
async function runAndRead(page, sides) {
  await page.getByTestId('run').click();
  await page.locator('[data-testid="outcomes"], #status.error').first().waitFor();
  if (await page.locator('#status.error').isVisible()) {
    throw new Error(`the page shows an error: ${await page.getByTestId('status').textContent()}`);
  }
  await assertEnabled(page.getByTestId('run'));
  const shown = { draws: await page.getByTestId('draws').textContent(), draw_rate: await page.getByTestId('draw-rate').textContent() };
  for (const side of sides) {
    shown[side] = {
      wins: await page.getByTestId(`wins:${side}`).textContent(),
      rate: await page.getByTestId(`rate:${side}`).textContent(),
      ci: await page.getByTestId(`ci:${side}`).textContent(),
    };
  }
  return shown;
}

async function assertEnabled(locator) {
  await locator.page().waitForFunction((el) => !el.disabled, await locator.elementHandle());
}

// Saves what a click on the locator downloads; returns the file's path.
async function download(page, locator, dir) {
  const [dl] = await Promise.all([page.waitForEvent('download'), locator.click()]);
  const to = path.join(dir, dl.suggestedFilename());
  await dl.saveAs(to);
  return to;
}

const pct = (x) => `${(x * 100).toFixed(1)} %`;
const ci = (c) => `[${(c[0] * 100).toFixed(1)}, ${(c[1] * 100).toFixed(1)}]`;

test('a battle built by clicking in the library shows the odds fam batch prints for its downloaded scenario', { timeout: 3 * TIMEOUT }, async () => {
  await onPage(baseUrl, 'built', async (page) => {
  await buildBattle(page);
  await page.getByTestId('runs').fill(String(RUNS));
  await page.getByTestId('seed').fill(SEED);
  const shown = await runAndRead(page, [BLUE.side, RED.side]);
  assert.match(await page.getByTestId('progress-text').textContent(), new RegExp(`^${RUNS} of ${RUNS} runs`));
  assert.equal(await page.getByTestId('plot').count(), 1, 'the Exchange histogram (the server’s SVG) is shown');
  assert.doesNotMatch(await page.locator('#result-body').innerText(), /^null$/m, 'no stray "null" among the results');

  // The same battle through the command line, from the page's downloads.
  const dir = fs.mkdtempSync(path.join(work, 'cli-'));
  const scenario = await download(page, page.getByTestId('download-scenario'), dir);
  for (const team of [BLUE, RED]) await download(page, page.getByTestId(`download:${team.file}`), dir);
  assert.deepEqual(fs.readdirSync(dir).sort(), [RED.file, BLUE.file, 'scenario.toml'].sort());
  const toml = fs.readFileSync(scenario, 'utf8');
  assert.match(toml, /maneuver = "close"/, 'the standing orders picked in the form are in the scenario');
  assert.match(toml, /damage_control = \["fire_control", "beam"\]/);
  assert.match(toml, /start_range = 36/);
  assert.match(toml, /\[rules\]\ndouble_drive_check = true\n/, 'the switch set on the page is in the scenario');
  assert.ok(toml.includes(`unit_destroyed = [{ unit = "${RED.ships[0]}", winner = "${BLUE.side}" }]`), toml);
  const cli = JSON.parse(execFileSync(FAM, ['batch', scenario, '--runs', String(RUNS), '--seed', SEED, '--json'], { cwd: dir, encoding: 'utf8' }));
  assert.equal(cli.runs, RUNS);
  assert.deepEqual(cli.sides.map((s) => s.name), [BLUE.side, RED.side]);
  for (const side of cli.sides) {
    assert.equal(shown[side.name].wins, String(side.wins), `${side.name}'s wins`);
    assert.equal(shown[side.name].rate, pct(side.win_rate), `${side.name}'s win rate`);
    assert.equal(shown[side.name].ci, ci(side.ci95), `${side.name}'s interval`);
  }
  assert.equal(shown.draws, String(cli.draws));
  assert.equal(shown.draw_rate, pct(cli.draw_rate));
  // Every note of the CLI's table on what the odds hinge on (idle weapons,
  // switches, readings) is shown above the odds.
  const text = execFileSync(FAM, ['batch', scenario, '--runs', String(RUNS), '--seed', SEED], { cwd: dir, encoding: 'utf8' });
  const notes = text.split('\n').filter((l) => l.startsWith('Note: ')).map((l) => l.slice('Note: '.length));
  const hinges = notes.length ? await page.getByTestId('hinges').textContent() : '';
  for (const n of notes) assert.ok(hinges.includes(n), `the page shows: ${n}`);
  const wins = cli.sides.reduce((n, s) => n + s.wins, 0);
  assert.ok(wins > 0, 'the battle was decided in some runs, so the comparison means something');

  await page.screenshot({ path: path.join(SHOTS, 'built.png'), fullPage: true });
  if (process.env.DOCS_SHOT) await page.screenshot({ path: path.join(ROOT, 'docs/serve.png'), fullPage: true });

  // The longest run replays with the very seed the CLI names (a 64-bit number).
  const longest = cli.notable_seeds.longest;
  const seedDigits = /--seed (\d+)/.exec(longest.command)[1];
  await page.getByTestId(`replay:${longest.run}`).first().click();
  await page.getByTestId('replay').locator('pre').first().waitFor();
  assert.match(await page.getByTestId('replay-command').textContent(), new RegExp(`--seed ${seedDigits}\\b`));
  assert.match(await page.getByTestId('replay').textContent(), /Exchange 1/);

  await page.locator('#replay').screenshot({ path: path.join(SHOTS, 'replay.png') });
  first = { shown, link: await shareLink(page) };
  });
});

async function shareLink(page) {
  await page.getByTestId('share').click();
  const link = page.getByTestId('share-link');
  await page.waitForFunction((el) => el.value.includes('#b='), await link.elementHandle());
  return link.inputValue();
}

test('the share link restores the battle, and Run gives the same numbers', { timeout: 2 * TIMEOUT }, async () => {
  assert.ok(first, 'the first test built a battle and shared it');
  assert.match(first.link, new RegExp(`^${baseUrl.replace(/[.]/g, '\\.')}#b=[A-Za-z0-9_-]+$`));
  await onPage(first.link, 'shared', async (page) => {
  for (const ship of [...BLUE.ships, ...RED.ships]) {
    await assert.doesNotReject(page.getByRole('button', { name: `Remove ${ship}` }).waitFor(), `${ship} is back in the battle`);
  }
  assert.equal(await page.getByTestId('runs').inputValue(), String(RUNS));
  assert.equal(await page.getByTestId('seed').inputValue(), SEED);
  assert.equal(await page.getByTestId('start-range').inputValue(), '36');
  assert.equal(await page.getByTestId('doctrine-maneuver-1-0').inputValue(), 'close');
  assert.equal(await page.getByTestId('doctrine-damage_control-1-0').inputValue(), 'fire_control, beam');
  assert.ok(await page.getByTestId('rule-double_drive_check').isChecked(), 'the rule switch is back');
  assert.equal(await page.getByTestId('condition-0-unit').inputValue(), RED.ships[0]);
  assert.equal(await page.getByTestId('condition-0-winner').inputValue(), BLUE.side);
  const shown = await runAndRead(page, [BLUE.side, RED.side]);
  assert.deepEqual(shown, first.shown);
  await page.screenshot({ path: path.join(SHOTS, 'shared.png'), fullPage: true });
  });
});

test('own ship files: a broken one is refused with its positions shown next to the input, an FTJava ship joins the battle', { timeout: TIMEOUT }, async () => {
  await onPage(baseUrl, 'upload', async (page) => {
  const broken = 'Profile: FB1\nShip: Unfinished\nMass: lots\n';
  await page.getByTestId('upload').setInputFiles({ name: 'broken.gzf', mimeType: 'text/plain', buffer: Buffer.from(broken) });
  const errors = page.getByTestId('upload-errors');
  await errors.locator('.error').waitFor();
  assert.match(await errors.textContent(), /broken\.gzf:\d+:\d+/);
  await page.screenshot({ path: path.join(SHOTS, 'upload-error.png'), fullPage: true });

  const ship = 'VKR Talon of Dusk';
  const xml = execFileSync(FAM, ['export', 'ftjava', path.join(ROOT, 'ssd/vakar-raiders.gzf'), '--ship', ship], { encoding: 'utf8' });
  await page.getByTestId('upload').setInputFiles({ name: 'talon.xml', mimeType: 'text/xml', buffer: Buffer.from(xml) });
  await page.locator('#uploads').getByRole('button', { name: `Add ${ship}` }).click();
  await page.getByRole('button', { name: `Remove ${ship}` }).waitFor();
  assert.equal(await errors.locator('.error').count(), 0, 'the earlier refusal is gone');
  const saved = await download(page, page.getByTestId('downloads').locator('a'), work);
  assert.match(path.basename(saved), /\.gzf$/);
  assert.match(fs.readFileSync(saved, 'utf8'), new RegExp(`^Ship: +${ship}$`, 'm'), 'the ship downloads as GZF');
  });
});

test('a damaged share link is answered with a message, and the page still works', { timeout: TIMEOUT }, async () => {
  await onPage(`${baseUrl}#b=bm90LWRlZmxhdGU`, 'bad-link', async (page) => {
    await page.locator('#status.error').waitFor();
    assert.match(await page.getByTestId('status').textContent(), /could not be read/);
    await page.getByTestId(`file:${BLUE.file}`).locator('summary').click();
    await page.getByRole('button', { name: `Add ${BLUE.ships[0]}` }).click();
    await page.getByRole('button', { name: `Remove ${BLUE.ships[0]}` }).waitFor();
  });
});

test('Cancel stops a long batch and shows the odds of the runs played', { timeout: 2 * TIMEOUT }, async () => {
  await onPage(baseUrl, 'cancel', async (page) => {
    await addShips(page, 'pick-0-0', { file: BLUE.file, ships: [BLUE.ships[0]] });
    await addShips(page, 'pick-1-0', { file: RED.file, ships: [RED.ships[0]] });
    await page.getByTestId('runs').fill('100000');
    await page.getByTestId('run').click();
    await page.waitForFunction(() => /^[1-9]\d* of 100000 runs/.test(document.querySelector('[data-testid="progress-text"]').textContent));
    await page.getByTestId('cancel').click();
    await page.locator('#status.note').waitFor();
    await page.getByTestId('outcomes').waitFor();
    const m = /^Cancelled after (\d+) of 100000 runs/.exec(await page.getByTestId('status').textContent());
    assert.ok(m, 'the page says the batch was cancelled');
    const played = Number(m[1]);
    assert.ok(played > 0 && played < 100000, `${played} runs played`);
    assert.match(await page.getByTestId('results-note').textContent(), new RegExp(`^${played} runs of`));
    const counts = ['wins:Blue', 'wins:Red', 'draws'].map((id) => page.getByTestId(id).textContent());
    const total = (await Promise.all(counts)).reduce((n, c) => n + Number(c), 0);
    assert.equal(total, played, 'the wins and draws count the runs played');
  });
});

test('Compare and Tune show what fam compare and fam tune print for the downloaded scenarios', { timeout: 4 * TIMEOUT }, async () => {
  await onPage(baseUrl, 'compare-tune', async (page) => {
  await buildBattle(page);
  await page.getByTestId('runs').fill('100');
  await page.getByTestId('seed').fill('5');
  // The odds first: Compare and Tune answer beside them, not over them.
  const odds = await runAndRead(page, [BLUE.side, RED.side]);
  const dir = fs.mkdtempSync(path.join(work, 'compare-'));
  for (const team of [BLUE, RED]) await download(page, page.getByTestId(`download:${team.file}`), dir);

  // A: the battle as built; B: the same at 12 MU.
  fs.renameSync(await download(page, page.getByTestId('download-scenario'), dir), path.join(dir, 'a.toml'));
  await page.getByTestId('snapshot').click();
  await page.getByTestId('start-range').fill('12');
  await page.getByTestId('start-range').press('Tab');
  fs.renameSync(await download(page, page.getByTestId('download-scenario'), dir), path.join(dir, 'b.toml'));
  await assertEnabled(page.getByTestId('compare'));
  await page.getByTestId('compare').click();
  const compared = page.getByTestId('compare-text');
  await compared.waitFor();
  const cliCompare = execFileSync(FAM, ['compare', 'a.toml', 'b.toml', '--runs', '100', '--seed', '5'], { cwd: dir, encoding: 'utf8' });
  assert.equal(await compared.textContent(), cliCompare, 'the page shows fam compare, paired difference and all');
  // A and B are named by what differs, and every difference is B − A.
  assert.match(await page.getByTestId('compare-what').textContent(), /B is A with: starting range 36 → 12 MU\./);
  assert.doesNotMatch(cliCompare, /A − B/, 'one sign convention: B − A');
  const cliJson = JSON.parse(execFileSync(FAM, ['compare', 'a.toml', 'b.toml', '--runs', '100', '--seed', '5', '--json'], { cwd: dir, encoding: 'utf8' }));
  const signed = (x) => `${x >= 0 ? '+' : '−'}${Math.abs(x * 100).toFixed(1)}`;
  for (const side of cliJson.sides) {
    assert.ok((await page.getByTestId('headline-text').textContent()).includes(`${side.name_b} ${signed(side.paired_difference)} pp`));
    assert.equal(Math.sign(side.win_rate.difference), Math.sign(side.win_rate.b - side.win_rate.a), 'the unpaired difference is B − A too');
  }

  // Tune Marek's standing orders in B cut to three Exchanges (a tuning
  // plays about 20 000 battles, and this is the debug build).
  await page.getByTestId('max-exchanges').fill('3');
  await page.getByTestId('max-exchanges').press('Tab');
  await download(page, page.getByTestId('download-scenario'), dir);
  await assertEnabled(page.getByTestId('tune'));
  await page.getByTestId('tune-side').selectOption(RED.side);
  await page.getByTestId('tune').click();
  const tuned = page.getByTestId('tune-text');
  await tuned.waitFor({ timeout: 3 * TIMEOUT });
  const cliTune = execFileSync(FAM, ['tune', 'scenario.toml', '--side', RED.side, '--runs', '100', '--seed', '5'], { cwd: dir, encoding: 'utf8' });
  assert.equal(await tuned.textContent(), cliTune, 'the page shows fam tune');
  const bar = await page.getByTestId('progress').evaluate((el) => [el.value, el.max]);
  assert.equal(bar[0], bar[1], 'the bar ends full');
  assert.match(await page.getByTestId('progress-text').textContent(), /Tune plays many standing orders, each on up to 100 runs/);
  // The batch's odds are still there, marked out of date by the edit since.
  assert.equal(await page.getByTestId(`wins:${BLUE.side}`).textContent(), odds[BLUE.side].wins);
  // "Use these orders" gives Marek's Formation the best orders found: the
  // first row of fam tune's table.
  const best = cliTune.split('\n').find((l) => /^1 /.test(l)).split(/ {2,}/).pop();
  await page.getByTestId('use-tuned').click();
  assert.match(await page.getByTestId('orders-1-0').locator('summary').textContent(), /^Standing orders: /);
  const used = fs.readFileSync(await download(page, page.getByTestId('download-scenario'), fs.mkdtempSync(path.join(work, 'used-'))), 'utf8');
  const table = used.slice(used.indexOf('[doctrine.Kestrel]'));
  assert.ok(table.startsWith('[doctrine.Kestrel]'), used);
  if (!best.startsWith('(')) {
    for (const pair of best.split(/, (?=\w+ = )/)) assert.ok(table.includes(`\n${pair}\n`), `${pair} in\n${table}`);
  }
  assert.equal(await page.getByTestId('stale').isVisible(), true, 'the odds are marked out of date');
  await page.screenshot({ path: path.join(SHOTS, 'tuned.png'), fullPage: true });
  });
});

test('Both sides play their best shows what fam solve finds, in words and as it prints it', { timeout: 4 * TIMEOUT }, async () => {
  await onPage(baseUrl, 'solve', async (page) => {
  const blue = { ...BLUE, ships: ['MCS Clear Heading'] };
  const red = { ...RED, ships: ['KRD Long Watch'] };
  await rename(page, 'side-name-0', blue.side);
  await rename(page, 'side-name-1', red.side);
  await addShips(page, 'pick-0-0', blue);
  await addShips(page, 'pick-1-0', red);
  // Short battles at close range: a solve plays thousands of small
  // batches, and the debug build must finish within the page's time limit.
  await page.getByTestId('max-exchanges').fill('3');
  await page.getByTestId('max-exchanges').press('Tab');
  await page.getByTestId('start-range').fill('12');
  await page.getByTestId('start-range').press('Tab');
  await page.getByTestId('runs').fill('20');
  await page.getByTestId('seed').fill('5');
  await assertEnabled(page.getByTestId('solve'));
  // The job's answer as the page received it: its JSON is `fam solve
  // --json`'s (tests/all/serve.rs holds that), so the words are checked
  // against it and the text against the CLI's, one solve instead of two.
  const answers = [];
  page.on('response', async (r) => {
    if (r.url().includes('/api/jobs/')) answers.push(await r.json().catch(() => null));
  });
  await page.getByTestId('solve').click();
  await page.getByTestId('solve-equilibrium').waitFor({ timeout: 3 * TIMEOUT });
  const dir = fs.mkdtempSync(path.join(work, 'solve-'));
  const scenario = await download(page, page.getByTestId('download-scenario'), dir);
  for (const team of [blue, red]) await download(page, page.getByTestId(`download:${team.file}`), dir);
  const args = ['solve', path.basename(scenario), '--runs', '20', '--seed', '5'];
  const cli = answers.find((a) => a && a.state === 'done').result.json;
  assert.equal(cli.schema, 'fam-solve');
  const odds = (o) => `${blue.side} wins ${(o.a_wins.mean * 100).toFixed(1)} % [${(o.a_wins.ci95[0] * 100).toFixed(1)}, ${(o.a_wins.ci95[1] * 100).toFixed(1)}]`;
  assert.ok((await page.getByTestId('solve-equilibrium').textContent()).startsWith(`If both sides play their best: ${odds(cli.equilibrium)}, draws `));
  assert.ok((await page.getByTestId('solve-default').textContent()).startsWith(`With the default doctrine: ${odds(cli.default)}, draws `));
  const gain = Math.max(0, ...cli.sides.map((s) => s.best_deviation.gain.mean)) * 100;
  assert.ok((await page.getByTestId('solve-bound').textContent()).startsWith(`Neither side gains more than ${gain.toFixed(1)} points by changing its orders`));
  const sides = await page.getByTestId('solve-orders').locator(':scope > li').allTextContents();
  assert.equal(sides.length, 2);
  cli.sides.forEach((side, i) => {
    assert.ok(sides[i].startsWith(side.name), sides[i]);
    if (side.strategies.length > 1) for (const s of side.strategies) assert.ok(sides[i].includes(`${(s.weight * 100).toFixed(1)} % of battles`), sides[i]);
  });
  assert.equal(await page.getByTestId('solve-text').textContent(), execFileSync(FAM, args, { cwd: dir, encoding: 'utf8' }), 'the page shows fam solve');
  await page.locator('#analysis').screenshot({ path: path.join(SHOTS, 'solved.png') });
  });
});

test('what the odds hinge on (weapons left idle) is shown above them, as fam batch notes it', { timeout: 2 * TIMEOUT }, async () => {
  await onPage(baseUrl, 'hinges', async (page) => {
  const blue = { ...BLUE, ships: ['MCS Clear Heading'] };
  const red = { ...RED, ships: ['KRD Long Watch'] };
  await rename(page, 'side-name-0', blue.side);
  await rename(page, 'side-name-1', red.side);
  await addShips(page, 'pick-0-0', blue);
  await addShips(page, 'pick-1-0', red);
  // Standing orders that keep Marek's class-1 beams on point defence
  // against an enemy with no missiles: idle, and the page must say so.
  await unfold(page, 'orders-1-0');
  await page.getByTestId('default-doctrine-1-0').uncheck();
  await page.getByTestId('doctrine-pd-1-0').selectOption('always');
  await page.getByTestId('runs').fill('100');
  await page.getByTestId('seed').fill('3');
  await runAndRead(page, [blue.side, red.side]);
  const dir = fs.mkdtempSync(path.join(work, 'hinges-'));
  const scenario = await download(page, page.getByTestId('download-scenario'), dir);
  for (const team of [blue, red]) await download(page, page.getByTestId(`download:${team.file}`), dir);
  const text = execFileSync(FAM, ['batch', scenario, '--runs', '100', '--seed', '3'], { cwd: dir, encoding: 'utf8' });
  const notes = text.split('\n').filter((l) => l.startsWith('Note: ')).map((l) => l.slice('Note: '.length));
  assert.ok(notes.length > 0, `these orders leave weapons idle: ${text}`);
  const shown = await page.getByTestId('hinges').locator('li').allTextContents();
  assert.deepEqual(shown, notes);
  await page.locator('#results').screenshot({ path: path.join(SHOTS, 'hinges.png') });
  });
});

test('a ship moves to another Formation, and the scenario lists it there', { timeout: TIMEOUT }, async () => {
  await onPage(baseUrl, 'move', async (page) => {
  await addShips(page, 'pick-0-0', BLUE);
  await page.getByRole('button', { name: 'Add a Formation to Blue' }).click();
  await page.getByTestId(`move:${BLUE.ships[1]}`).selectOption('Blue 2');
  await addShips(page, 'pick-1-0', { ...RED, ships: [RED.ships[0]] });
  const dir = fs.mkdtempSync(path.join(work, 'move-'));
  const toml = fs.readFileSync(await download(page, page.getByTestId('download-scenario'), dir), 'utf8');
  assert.ok(toml.includes(`"Blue 1" = ["${BLUE.ships[0]}"]`), toml);
  assert.ok(toml.includes(`"Blue 2" = ["${BLUE.ships[1]}"]`), toml);
  assert.ok(toml.includes('Blue = ["Blue 1", "Blue 2"]'), toml);
  });
});

test('three of one design against a battleship: + and − count them, the points add up, the CLI agrees', { timeout: 2 * TIMEOUT }, async () => {
  await onPage(baseUrl, 'counts', async (page) => {
    await rename(page, 'side-name-0', 'Ilse');
    await rename(page, 'side-name-1', 'Marek');
    await addShips(page, 'pick-0-0', { file: 'kestrel-reach.gzf', ships: ['KRD Ridge Warden'] });
    // Focus stays on the button used: the builder redraws on every change.
    const add = page.getByTestId('add:KRD Ridge Warden');
    assert.equal(await add.textContent(), 'Add another');
    assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('data-testid')), 'add:KRD Ridge Warden', 'focus stays on Add');
    await page.getByTestId('more:KRD Ridge Warden').click();
    assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('data-testid')), 'more:KRD Ridge Warden');
    await page.getByTestId('more:KRD Ridge Warden').press('Enter');
    await page.getByTestId('more:KRD Ridge Warden').click();
    assert.equal(await page.getByTestId('count:KRD Ridge Warden').textContent(), '4');
    await page.getByTestId('less:KRD Ridge Warden').click();
    assert.equal(await page.getByTestId('count:KRD Ridge Warden').textContent(), '3');
    await addShips(page, 'pick-1-0', { file: 'meridian-compact.gzf', ships: ['MCS Sovereign Bearing'] });
    // Three Tors at 133 against the Astrolabe's 590 (ssd/README.md).
    assert.equal(await page.getByTestId('side-points-0').textContent(), '399 points (32 % fewer than the other side)');
    assert.equal(await page.getByTestId('side-points-1').textContent(), '590 points (48 % more than the other side)');
    await page.getByTestId('runs').fill(String(RUNS));
    await page.getByTestId('seed').fill(SEED);
    const shown = await runAndRead(page, ['Ilse', 'Marek']);
    const dir = fs.mkdtempSync(path.join(work, 'counts-'));
    const scenario = await download(page, page.getByTestId('download-scenario'), dir);
    for (const f of ['kestrel-reach.gzf', 'meridian-compact.gzf']) await download(page, page.getByTestId(`download:${f}`), dir);
    assert.match(fs.readFileSync(scenario, 'utf8'), /\[\{ ship = "KRD Ridge Warden", count = 3 \}\]/);
    const cli = JSON.parse(execFileSync(FAM, ['batch', 'scenario.toml', '--runs', String(RUNS), '--seed', SEED, '--json'], { cwd: dir }));
    for (const s of cli.sides) {
      assert.equal(shown[s.name].wins, String(s.wins));
      assert.equal(shown[s.name].rate, pct(s.win_rate));
    }
    assert.deepEqual(cli.units.map((u) => u.name), ['KRD Ridge Warden', 'KRD Ridge Warden 2', 'KRD Ridge Warden 3', 'MCS Sovereign Bearing']);
    // An edit marks the results out of date and clears an old share link;
    // Enter in Runs runs the battle as it is now.
    // The link is made asynchronously (deflate): wait for it, as shareLink does.
    assert.notEqual(await shareLink(page), '');
    assert.equal(await page.getByTestId('stale').isVisible(), false);
    await page.getByTestId('more:KRD Ridge Warden').click();
    assert.equal(await page.getByTestId('stale').isVisible(), true);
    assert.equal(await page.getByTestId('share-link').inputValue(), '');
    await page.getByTestId('runs').press('Enter');
    await page.getByTestId('stale').waitFor({ state: 'hidden', timeout: TIMEOUT });
    assert.equal(await page.getByTestId('wins:Ilse').count(), 1);
    // The skip link leads to Run.
    await page.getByTestId('skip-to-run').focus();
    await page.getByTestId('skip-to-run').press('Enter');
    assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('data-testid')), 'run');
  });
});

// Where a box is on the screen: wholly inside the window, below the top.
async function inView(locator) {
  const box = await locator.boundingBox();
  const { width, height } = locator.page().viewportSize();
  return box !== null && box.y >= 0 && box.x >= 0 && box.y + box.height <= height && box.x + box.width <= width;
}

for (const [width, height, name] of [[1280, 800, 'desktop'], [390, 844, 'phone']]) {
  test(`${name} (${width}×${height}): Run and the headline in view, errors beside their cause, no page-wide scroll`, { timeout: 2 * TIMEOUT }, async () => {
    await onPage(baseUrl, `layout-${name}`, async (page) => {
      await page.setViewportSize({ width, height });
      await rename(page, 'side-name-0', 'Ilse');
      await rename(page, 'side-name-1', 'Marek');
      await addShips(page, 'pick-0-0', { file: 'kestrel-reach.gzf', ships: ['KRD Ridge Warden'] });
      await page.getByTestId('more:KRD Ridge Warden').click();
      // The dock shows what is being built, with counts and points.
      assert.equal(await page.getByTestId('dock-side-0').textContent(), 'Ilse: 2 × KRD Ridge Warden · 266 pts');
      assert.ok(await inView(page.getByTestId('dock-side-0')));

      // Marek has no ships yet: the page says so beside Marek's Formation.
      await page.getByTestId('run').click();
      const empty = page.getByTestId('formation-1-0').getByTestId('field-error');
      await empty.waitFor();
      assert.match(await empty.textContent(), /^Red 1 has no ships yet/);
      assert.ok(await inView(empty), 'the error is on screen');
      assert.match(await page.getByTestId('status').textContent(), /One thing to change, marked in red beside it/);

      // A refusal only the server sees is placed too, in the page's words,
      // with fam's position behind Details.
      await addShips(page, 'pick-1-0', { file: 'meridian-compact.gzf', ships: ['MCS Clear Heading'] });
      assert.equal(await empty.count(), 0, 'the fixed error is gone');
      await page.getByTestId('max-exchanges').fill('0');
      await page.getByTestId('max-exchanges').press('Tab');
      await page.getByTestId('run').click();
      const victory = page.locator('fieldset', { has: page.getByTestId('max-exchanges') }).getByTestId('field-error');
      await victory.waitFor();
      assert.match(await victory.locator(':scope > p').textContent(), /^Exchanges at most out of range \(fam expected a whole number from 1 to 1000\)/);
      assert.ok(await inView(victory), 'the error is on screen');
      await victory.locator('summary').click();
      assert.match(await victory.locator('details').textContent(), /scenario\.toml:\d+:\d+/);

      await page.getByTestId('max-exchanges').fill('4');
      await page.getByTestId('max-exchanges').press('Tab');
      await page.getByTestId('runs').fill('300');
      const shown = await runAndRead(page, ['Ilse', 'Marek']);
      const text = await page.getByTestId('headline-text').textContent();
      const whole = (r) => Math.round(Number(r.replace(' %', '')));
      assert.ok(text.startsWith(`Ilse ${whole(shown.Ilse.rate)} % [`), text);
      assert.ok(text.includes(`· draw ${whole(shown.draw_rate)} % · Marek ${whole(shown.Marek.rate)} % [`), text);
      for (const id of ['run', 'headline-text', 'progress']) assert.ok(await inView(page.getByTestId(id)), `${id} is on screen`);
      // Scrolled down to the results, the dock stays.
      await page.getByTestId('fates').scrollIntoViewIfNeeded();
      assert.ok(await inView(page.getByTestId('headline-text')), 'the headline stays in view');
      assert.ok(await inView(page.getByTestId('run')), 'Run stays in view');
      const [scrollWidth, clientWidth] = await page.evaluate(() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]);
      assert.ok(scrollWidth <= clientWidth, `no horizontal page scroll: ${scrollWidth} > ${clientWidth}`);
      await page.evaluate(() => window.scrollTo(0, 0));
      await page.screenshot({ path: path.join(SHOTS, `${name}.png`) });
      if (process.env.DOCS_SHOT) await page.screenshot({ path: path.join(ROOT, `docs/serve-${name}.png`) });
    });
  });
}
