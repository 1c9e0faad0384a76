// The odds calculator page of `fam serve`: builds a battle, asks the server
// (docs/serve-api.md) to play it, and shows what comes back. No framework:
// the state lives in `state`, and `renderBattle` redraws the builder from it.
'use strict';

const DOCTRINE = {
  target: ['auto', 'nearest', 'largest', 'weakest', 'most_dangerous'],
  maneuver: ['auto', 'best_range', 'close', 'maintain', 'withdraw', 'hold'],
  evasion: ['auto', 'third', 'max', 'dice'],
  fire_at: ['auto', 'nearest', 'largest', 'weakest', 'most_dangerous'],
  use_ordnance: ['auto', 'true', 'false'],
  use_needles: ['true', 'false'],
  pd: ['auto', 'never', 'always'],
  withdraw_when: ['auto', 'never', 'crippled', 'losses'],
  fighters: ['strike', 'hold'],
};
const DOCTRINE_LABELS = {
  target: 'Maneuver target', maneuver: 'Maneuver', evasion: 'Evasion', fire_at: 'Fire at',
  use_ordnance: 'Use ordnance', use_needles: 'Use needle beams', pd: 'Point defence',
  withdraw_when: 'Withdraw when', fighters: 'Fighters',
};
// The choices that take a number, and the key of the table that holds it.
const NUMBER_CHOICES = { maneuver: ['hold', 'hold'], evasion: ['dice', null], withdraw_when: ['losses', 'losses'] };
const MAX_UPLOAD = 1024 * 1024;

const state = {
  battle: {
    title: 'A new battle',
    sides: [
      { name: 'Blue', formations: [{ name: 'Blue 1', units: [], doctrine: null }] },
      { name: 'Red', formations: [{ name: 'Red 1', units: [], doctrine: null }] },
    ],
    start_range: 48,
    ranges: [],
    victory: { max_exchanges: 10, morale: 50 },
    rules: {},
  },
  uploads: [], // [{name, text}]: files the user added, as GZF
  origin: {}, // ship name -> the file it was added from
  runs: 1000,
  seed: '1',
};
let library = []; // [{name, ships}]
const uploadShips = {}; // uploaded file name -> its ships
let target = { side: 0, formation: 0 };
let snapshotA = null;
let job = null;
// What fam refused in the battle, each shown beside the part to change:
// [{place, text, diagnostic}] (docs/serve-api.md, "place").
let placed = [];
// Formations whose standing orders the player has opened ("side/formation").
const openOrders = new Set();

const $ = (id) => document.getElementById(id);

// ---------- small DOM helper ----------

function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else if (k === 'testid') el.dataset.testid = v;
    else if (k in el && typeof v !== 'string') el[k] = v;
    else el.setAttribute(k, v === true ? '' : v);
  }
  for (const c of children.flat()) {
    if (c !== null && c !== undefined && c !== false) el.append(c instanceof Node ? c : String(c));
  }
  return el;
}

// ---------- numbers the server sends as 64-bit integers ----------

// A seed beyond JavaScript's exact integers, kept as its digits.
class U64 {
  constructor(digits) { this.digits = String(digits); }
  toString() { return this.digits; }
  toJSON() { return '\u0000u64:' + this.digits; }
}

function parseJson(text) {
  // Source text access keeps big integers exact where the browser has it.
  return JSON.parse(text, function (key, value, context) {
    if (typeof value === 'number' && Number.isInteger(value) && !Number.isSafeInteger(value) && context && context.source) {
      return new U64(context.source);
    }
    return value;
  });
}

function toJson(value) {
  return JSON.stringify(value).replace(/"\\u0000u64:(\d+)"/g, '$1');
}

// ---------- talking to the server ----------

function clientId() {
  let id = sessionStorage.getItem('fam-client');
  if (!id) {
    const bytes = crypto.getRandomValues(new Uint8Array(16));
    id = Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
    sessionStorage.setItem('fam-client', id);
  }
  return id;
}

class ApiError extends Error {
  constructor(message, detail) {
    super(message);
    this.diagnostics = (detail && detail.diagnostics) || [];
    this.rendered = (detail && detail.rendered) || '';
  }
}

async function api(method, path, body) {
  const init = { method, headers: { 'X-Fam-Client': clientId() } };
  if (body !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = toJson(body);
  }
  let res;
  try {
    res = await fetch(path, init);
  } catch (e) {
    throw new ApiError('The fam server did not answer (is `fam serve` still running?)');
  }
  const text = await res.text();
  if (res.ok) {
    return (res.headers.get('Content-Type') || '').includes('json') ? parseJson(text) : text;
  }
  let detail = null;
  try { detail = JSON.parse(text).error; } catch (e) { /* not JSON: shown as text */ }
  const message = (detail && detail.message) || text || res.statusText;
  throw new ApiError(`${message} (HTTP ${res.status})`, detail);
}

// ---------- messages ----------

function diagnosticList(diags) {
  if (!diags.length) return null;
  return h('ul', { class: 'diagnostics' }, diags.map((d) =>
    h('li', {}, h('code', {}, [d.file, d.line, d.column].filter((p) => p !== null && p !== undefined && p !== '').join(':')), ' ',
      d.severity ? `${d.severity}: ` : '', d.message)));
}

function errorBlock(err) {
  const rendered = err.rendered ? h('pre', { class: 'rendered' }, err.rendered) : null;
  return [h('p', {}, err.message || String(err)), diagnosticList(err.diagnostics || []), rendered];
}

function showError(err) {
  if ((err.diagnostics || []).some((d) => d.place)) return showRefusal(refusalOf(err));
  const box = $('status');
  box.replaceChildren(...errorBlock(err).filter(Boolean));
  box.className = 'error';
  box.hidden = false;
}

function showNote(text) {
  const box = $('status');
  box.replaceChildren(h('p', {}, text));
  box.className = 'note';
  box.hidden = false;
}

function clearStatus() {
  $('status').hidden = true;
  $('status').className = '';
}

// ---------- what fam refuses, beside what to change ----------

// The page's names for the scenario keys a message may quote.
const KEY_WORDS = {
  max_exchanges: 'Exchanges at most', morale: 'the morale rule', start_range: 'Starting range', mu: 'the range',
  between: 'the range’s Formations', unit_destroyed: 'the condition', unit_escaped: 'the condition', points: 'the condition',
  damage_control: 'Damage control order',
};

// A diagnostic in a player's words: scenario keys as the page labels them,
// Units as ships, and what fam expected.
function playerWords(d) {
  let text = d.message.replace(/`([^`]*)`/g, (_, k) => KEY_WORDS[k] || DOCTRINE_LABELS[k] || `“${k}”`)
    .replace(/\bno Units\b/g, 'no ships').replace(/^TOML syntax error: duplicate key$/, 'Two things here have the same name');
  if (d.expected) text += ` (fam expected ${d.expected})`;
  if (d.help) text += `. ${d.help}`;
  return text.charAt(0).toUpperCase() + text.slice(1);
}

// The block of the CLI's rendering that belongs to diagnostic `d`.
function renderedBlock(rendered, d) {
  const at = `--> ${d.file}:${d.line}:${d.column}`;
  return (rendered || '').split(/\n(?=(?:error|warning)\b)/).find((b) => b.includes(at)) || '';
}

// A refusal from the server as the page's problems: [{place, text, where, detail}].
function refusalOf(err) {
  return (err.diagnostics || []).map((d) => ({
    place: d.place || null,
    text: playerWords(d),
    where: [d.file, d.line, d.column].filter((x) => x !== null && x !== undefined && x !== '').join(':'),
    detail: renderedBlock(err.rendered, d),
  }));
}

// What the page can tell before asking the server, in its own words.
function battleProblems() {
  const problems = [];
  const seen = new Map();
  state.battle.sides.forEach((side, i) => side.formations.forEach((f, j) => {
    if (!f.units.length) {
      problems.push({ place: `formation/${i}/${j}`, text: `${f.name} has no ships yet: add some from the ship list (press “Add ships here” first), or remove this Formation.` });
    }
    if (seen.has(f.name)) problems.push({ place: `formation/${i}/${j}`, text: `Another Formation is already named “${f.name}”: give each its own name.` });
    seen.set(f.name, true);
  }));
  const sideNames = new Set();
  state.battle.sides.forEach((side, i) => {
    if (sideNames.has(side.name)) problems.push({ place: `side/${i}`, text: `Another side is already named “${side.name}”: give each its own name.` });
    sideNames.add(side.name);
  });
  return problems;
}

// The element that shows the problems of `place`: a Formation's or a
// side's own box, else the box of the fieldset that holds it.
function slotFor(place) {
  if (!place) return null;
  const m = /^(?:formation|doctrine)\/(\d+)\/(\d+)/.exec(place);
  if (m) return document.querySelector(`[data-testid="formation-${m[1]}-${m[2]}"] > .place-errors`);
  const side = /^side\/(\d+)$/.exec(place);
  if (side) return document.querySelector(`[data-testid="side-${side[1]}"] > .place-errors`);
  return [...document.querySelectorAll('.place-errors[data-places]')]
    .find((el) => el.dataset.places.split(' ').some((p) => place === p || place.startsWith(p))) || null;
}

function problemBlock(p) {
  const detail = p.where || p.detail ? h('details', {}, h('summary', {}, 'Details'),
    p.where ? h('p', {}, h('code', {}, p.where)) : null, p.detail ? h('pre', { class: 'rendered' }, p.detail) : null) : null;
  return h('div', { class: 'field-error', role: 'alert', tabindex: '-1', testid: 'field-error' }, h('p', {}, p.text), detail);
}

// Draws each problem in its slot (opening the folds around it); the rest,
// and a summary, go to the dock.
function renderPlaced() {
  for (const el of document.querySelectorAll('.place-errors')) el.replaceChildren();
  const loose = [];
  for (const p of placed) {
    const slot = slotFor(p.place);
    if (!slot) { loose.push(p); continue; }
    slot.append(problemBlock(p));
    for (let d = slot.closest('details'); d; d = d.parentElement.closest('details')) d.open = true;
  }
  return loose;
}

function showRefusal(problems) {
  placed = problems;
  const loose = renderPlaced();
  const shown = placed.length - loose.length;
  const box = $('status');
  const first = document.querySelector('.place-errors .field-error');
  const jump = () => { first.scrollIntoView({ block: 'center' }); first.focus({ preventScroll: true }); };
  box.replaceChildren(
    h('p', {}, h('b', {}, 'fam can’t play this battle yet. '),
      shown ? [`${shown === 1 ? 'One thing' : `${shown} things`} to change, marked in red beside ${shown === 1 ? 'it' : 'them'}. `,
        h('button', { type: 'button', class: 'small', testid: 'show-problem', onclick: jump }, 'Show me')] : ''),
    ...loose.map(problemBlock));
  box.className = 'error';
  box.hidden = false;
  if (first) {
    const r = first.getBoundingClientRect();
    if (r.top < $('dock').getBoundingClientRect().bottom || r.bottom > window.innerHeight) first.scrollIntoView({ block: 'center' });
  }
}

// Problems the page sees itself stop a job before it is sent.
function checkBattle() {
  const problems = battleProblems();
  if (problems.length) {
    showRefusal(problems);
    return false;
  }
  return true;
}

// Runs an event handler, showing what went wrong instead of failing silently.
function guarded(fn) {
  return async (...args) => {
    try {
      await fn(...args);
    } catch (err) {
      showError(err);
    }
  };
}

// ---------- the battle as the server takes it ----------

function allUnits(battle) {
  return battle.sides.flatMap((s) => s.formations.flatMap((f) => f.units));
}

function battleFiles() {
  const names = [];
  for (const unit of allUnits(state.battle)) {
    const file = state.origin[unit];
    if (file && !names.includes(file)) names.push(file);
  }
  return names.map((name) => {
    const up = state.uploads.find((u) => u.name === name);
    return up ? { name, text: up.text } : { name };
  });
}

function battleForServer() {
  return { ...structuredClone(state.battle), files: battleFiles() };
}

function formationNames() {
  return state.battle.sides.flatMap((s) => s.formations.map((f) => f.name));
}

function shipsOf(fileName) {
  const lib = library.find((f) => f.name === fileName);
  return lib ? lib.ships : uploadShips[fileName] || [];
}

// ---------- the battle builder ----------

// Results and the share link stand for the battle as it was: after any
// edit the results say they are out of date and the old link is cleared.
function markStale() {
  for (const id of ['results', 'analysis']) {
    const section = $(id);
    if (section.hidden) continue;
    section.querySelector('.stale').hidden = false;
    section.classList.add('is-stale');
  }
  const headline = $('headline');
  if (!headline.hidden && !headline.classList.contains('stale')) {
    headline.classList.add('stale');
    headline.prepend('Before your edit: ');
  }
  if ($('share-link').value) {
    $('share-link').value = '';
    $('share-link').placeholder = 'the battle changed: press Share link again';
  }
}

function markFresh(id) {
  $(id).querySelector('.stale').hidden = true;
  $(id).classList.remove('is-stale');
}

// After an edit: old answers are out of date, old refusals are gone.
function renderBattle() {
  markStale();
  placed = [];
  draw();
}

// Draws the builder afresh from `state`, keeping the focus where it was.
function draw() {
  const focused = document.activeElement && document.activeElement.closest('#battle') ? document.activeElement.dataset.testid : null;
  $('title').value = state.battle.title;
  $('start-range').value = state.battle.start_range;
  const victory = state.battle.victory;
  $('max-exchanges').value = victory.max_exchanges;
  $('morale-on').checked = victory.morale !== false;
  $('morale').disabled = victory.morale === false;
  $('morale').value = victory.morale === false ? 50 : victory.morale;
  $('sides').replaceChildren(...state.battle.sides.map(sideBlock));
  renderRanges();
  renderConditions();
  renderRules();
  renderTargets();
  renderShipButtons();
  renderDownloads();
  renderDock();
  renderPlaced();
  if (focused && document.activeElement === document.body) refocus(focused);
}

// The dock's line of what is being built: each side's ships with counts and points.
function renderDock() {
  $('dock-sides').replaceChildren(...state.battle.sides.map((side, i) => {
    const units = side.formations.flatMap((f) => f.units);
    const designs = [...new Set(units)].map((u) => {
      const n = units.filter((x) => x === u).length;
      return n > 1 ? `${n} × ${u}` : u;
    });
    return h('span', { testid: `dock-side-${i}`, title: designs.join(', ') }, h('b', {}, side.name), ': ',
      designs.length ? designs.join(', ') : 'no ships yet', ` · ${sidePoints(side)} pts`);
  }));
}

function sideBlock(side, i) {
  const remove = () => {
    state.battle.sides.splice(i, 1);
    target = { side: 0, formation: 0 };
    renderBattle();
  };
  const addFormation = () => {
    side.formations.push({ name: uniqueName(`${side.name} ${side.formations.length + 1}`), units: [], doctrine: null });
    target = { side: i, formation: side.formations.length - 1 };
    renderBattle();
  };
  return h('fieldset', { class: 'side', testid: `side-${i}` },
    h('legend', {}, `Side ${i + 1} · `, h('span', { testid: `side-points-${i}` }, sidePointsText(i))),
    h('div', { class: 'place-errors' }),
    h('p', {},
      nameInput(`Name of side ${i + 1}`, `side-name-${i}`, side.name, (v) => { renameWinner(side.name, v); side.name = v; renderBattle(); }),
      ' ', h('button', { type: 'button', onclick: remove, disabled: state.battle.sides.length <= 2 }, `Remove side ${i + 1}`)),
    side.formations.map((f, j) => formationBlock(side, i, f, j)),
    h('p', {}, h('button', { type: 'button', testid: `add-formation-${i}`, onclick: addFormation }, `Add a Formation to ${side.name}`)));
}

// A Unit's points as the page's lists give them (a record's Cost:, else the
// construction rules' figure); 0 when its file is unknown.
function unitPoints(unit) {
  const ship = shipsOf(state.origin[unit]).find((s) => s.name === unit);
  return (ship && ship.points) || 0;
}

function sidePoints(side) {
  return side.formations.flatMap((f) => f.units).reduce((sum, u) => sum + unitPoints(u), 0);
}

// "399 points" and, against the largest other side, how far apart.
function sidePointsText(i) {
  const sides = state.battle.sides;
  const mine = sidePoints(sides[i]);
  const others = sides.filter((_, k) => k !== i).map(sidePoints);
  const most = Math.max(0, ...others);
  if (!mine || !most) return `${mine} points`;
  const diff = Math.round(((mine - most) / most) * 100);
  const balance = Math.abs(diff) <= 5 ? 'balanced' : diff > 0 ? `${diff} % more than the other side` : `${-diff} % fewer than the other side`;
  return `${mine} points (${balance})`;
}

function uniqueName(base) {
  let name = base;
  for (let n = 2; formationNames().includes(name); n++) name = `${base} (${n})`;
  return name;
}

function nameInput(label, testid, value, onchange) {
  return h('label', {}, label, ' ',
    h('input', { type: 'text', value, testid, required: true, onchange: (e) => onchange(e.target.value.trim()) }));
}

function formationBlock(side, i, formation, j) {
  const rename = (name) => {
    const old = formation.name;
    for (const r of state.battle.ranges) r.between = r.between.map((n) => (n === old ? name : n));
    for (const f of state.battle.sides.flatMap((s) => s.formations)) {
      for (const k of ['target', 'fire_at']) if (f.doctrine && f.doctrine[k] === old) f.doctrine[k] = name;
    }
    formation.name = name;
    renderBattle();
  };
  const remove = () => {
    side.formations.splice(j, 1);
    target = { side: 0, formation: 0 };
    renderBattle();
  };
  const active = target.side === i && target.formation === j;
  return h('div', { class: active ? 'formation active' : 'formation', testid: `formation-${i}-${j}` },
    h('p', {},
      nameInput(`Formation ${j + 1} of ${side.name}`, `formation-name-${i}-${j}`, formation.name, rename), ' ',
      h('button', { type: 'button', testid: `pick-${i}-${j}`, 'aria-pressed': String(active), onclick: () => { target = { side: i, formation: j }; renderBattle(); } },
        active ? 'Ships go here' : 'Add ships here'), ' ',
      h('button', { type: 'button', onclick: remove, disabled: side.formations.length <= 1 }, `Remove ${formation.name}`)),
    h('div', { class: 'place-errors' }),
    unitList(formation),
    doctrineForm(formation, `${i}-${j}`));
}

function unitList(formation) {
  if (!formation.units.length) return h('p', { class: 'empty' }, 'No ships yet: pick some from the list.');
  const designs = [...new Set(formation.units)];
  return h('ul', { class: 'units' }, designs.map((unit) => {
    const ship = shipsOf(state.origin[unit]).find((s) => s.name === unit);
    const count = formation.units.filter((u) => u === unit).length;
    const countable = !ship || ship.kind === 'ship';
    const less = () => {
      formation.units.splice(formation.units.lastIndexOf(unit), 1);
      if (!allUnits(state.battle).includes(unit)) delete state.origin[unit];
      renderBattle();
      refocus(`less:${unit}`, `more:${unit}`);
    };
    const more = () => {
      formation.units.splice(formation.units.lastIndexOf(unit) + 1, 0, unit);
      renderBattle();
      refocus(`more:${unit}`);
    };
    const k = formation.units.indexOf(unit);
    return h('li', {}, count > 1 ? `${count} × ${unit}` : unit,
      ship ? h('span', { class: 'muted' }, ` ${ship.class || ''} · ${ship.points ?? '?'} pts${count > 1 ? ' each' : ''}`) : null, ' ',
      countable ? h('span', { class: 'counter' },
        h('button', { type: 'button', class: 'small', testid: `less:${unit}`, 'aria-label': `One ${unit} fewer`, onclick: less }, '−'),
        h('output', { testid: `count:${unit}`, 'aria-label': `${unit}: how many` }, String(count)),
        h('button', { type: 'button', class: 'small', testid: `more:${unit}`, 'aria-label': `One ${unit} more`, onclick: more }, '+')) : null, ' ',
      count === 1 ? moveSelect(formation, unit, k) : null, ' ',
      h('button', { type: 'button', class: 'small', 'aria-label': `Remove ${unit}`, onclick: () => {
        formation.units = formation.units.filter((u) => u !== unit);
        if (!allUnits(state.battle).includes(unit)) delete state.origin[unit];
        renderBattle();
      } }, count > 1 ? 'Remove all' : 'Remove'));
  }));
}

// Puts the focus back on the first of these test ids still on the page
// (the builder is drawn afresh on every change).
function refocus(...ids) {
  for (const id of ids) {
    const el = document.querySelector(`[data-testid="${CSS.escape(id)}"]`);
    if (el && !el.disabled) {
      el.focus();
      return;
    }
  }
}

// Moves a ship to another Formation, of its side or another.
function moveSelect(formation, unit, k) {
  const others = state.battle.sides.flatMap((s) => s.formations.filter((f) => f !== formation).map((f) => [s, f]));
  if (!others.length) return null;
  const move = (e) => {
    const [to] = others.filter(([, f]) => f.name === e.target.value).map(([, f]) => f);
    if (!to) return;
    formation.units.splice(k, 1);
    to.units.push(unit);
    renderBattle();
  };
  return h('select', { class: 'small', 'aria-label': `Move ${unit} to`, testid: `move:${unit}`, onchange: move },
    h('option', { value: '' }, 'Move to…'), others.map(([s, f]) => h('option', { value: f.name }, `${s.name}: ${f.name}`)));
}

// ---------- standing orders ----------

// A Formation's standing orders, folded away until opened.
function doctrineForm(formation, key) {
  const byDefault = formation.doctrine === null;
  const toggle = (e) => {
    formation.doctrine = e.target.checked ? null : {};
    renderBattle();
  };
  const box = h('details', {
    class: 'orders', testid: `orders-${key}`, open: openOrders.has(key),
    ontoggle: (e) => { if (e.target.open) openOrders.add(key); else openOrders.delete(key); },
  }, h('summary', {}, `Standing orders: ${byDefault ? 'the default doctrine' : ordersSummary(formation.doctrine)}`),
  h('label', {}, h('input', { type: 'checkbox', checked: byDefault, testid: `default-doctrine-${key}`, onchange: toggle }),
    ` Default doctrine for ${formation.name}`));
  if (!byDefault) {
    box.append(h('div', { class: 'doctrine-keys' }, Object.keys(DOCTRINE).map((k) => doctrineField(formation, k, key)),
      damageControlField(formation, key)));
  }
  return box;
}

// "maneuver close, evasion max" (or "the default doctrine" when nothing is set).
function ordersSummary(doctrine) {
  const parts = Object.entries(doctrine).map(([k, v]) => {
    const label = (DOCTRINE_LABELS[k] || k.replace(/_/g, ' ')).toLowerCase();
    if (Array.isArray(v)) return `${label} ${v.join(', ')}`;
    const [choice, number] = doctrineChoice(v);
    return `${label} ${choice}${number !== '' ? ` ${number}` : ''}`;
  });
  return parts.length ? parts.join('; ') : 'the default doctrine';
}

// `damage_control`: the kinds in order, written as words between commas.
function damageControlField(formation, key) {
  const update = (e) => {
    const kinds = e.target.value.split(/[\s,]+/).filter(Boolean);
    if (kinds.length) formation.doctrine.damage_control = kinds;
    else delete formation.doctrine.damage_control;
  };
  return h('label', { class: 'wide' }, 'Damage control order ',
    h('input', { type: 'text', testid: `doctrine-damage_control-${key}`, placeholder: 'e.g. fire_control, ordnance, beam',
      value: (formation.doctrine.damage_control || []).join(', '), onchange: update }));
}

function doctrineChoice(value) {
  if (value === undefined) return ['', ''];
  if (typeof value === 'object') {
    const [choice, field] = Object.entries(NUMBER_CHOICES).find(([, [, f]]) => f && f in value)[1];
    return [choice, value[field]];
  }
  if (typeof value === 'number') return ['dice', value];
  return [String(value), ''];
}

function doctrineValue(name, choice, number) {
  if (choice === '') return undefined;
  if ((name === 'use_ordnance' || name === 'use_needles') && (choice === 'true' || choice === 'false')) return choice === 'true';
  const numbered = NUMBER_CHOICES[name];
  if (numbered && numbered[0] === choice) {
    const n = Number(number || 0);
    return numbered[1] ? { [numbered[1]]: n } : n;
  }
  return choice;
}

function doctrineField(formation, name, key) {
  const [choice, number] = doctrineChoice(formation.doctrine[name]);
  const others = name === 'target' || name === 'fire_at' ? formationNames().filter((n) => n !== formation.name) : [];
  const options = [h('option', { value: '' }, '(left out)'),
    ...DOCTRINE[name].map((v) => h('option', { value: v }, v)),
    ...others.map((v) => h('option', { value: v }, v))];
  const select = h('select', { testid: `doctrine-${name}-${key}` }, options);
  select.value = choice;
  const numbered = NUMBER_CHOICES[name];
  const num = numbered ? h('input', {
    type: 'number', min: '0', step: '1', value: number, 'aria-label': `${DOCTRINE_LABELS[name]}: ${numbered[0]}`,
    testid: `doctrine-${name}-n-${key}`, hidden: choice !== numbered[0],
  }) : null;
  const update = () => {
    const value = doctrineValue(name, select.value, num && num.value);
    if (value === undefined) delete formation.doctrine[name];
    else formation.doctrine[name] = value;
    if (num) num.hidden = select.value !== numbered[0];
  };
  select.addEventListener('change', update);
  if (num) num.addEventListener('change', update);
  return h('label', {}, DOCTRINE_LABELS[name], ' ', select, num);
}

// ---------- ranges and the formation picker ----------

function renderRanges() {
  const names = formationNames();
  $('ranges').replaceChildren(...state.battle.ranges.map((r, k) => {
    const pick = (side) => {
      const sel = h('select', { 'aria-label': `Range ${k + 1}: Formation ${side + 1}`, testid: `range-${k}-${side}`, onchange: (e) => { r.between[side] = e.target.value; } },
        names.map((n) => h('option', { value: n }, n)));
      sel.value = r.between[side];
      return sel;
    };
    const mu = h('input', { type: 'number', min: '0', step: '1', value: r.mu, 'aria-label': `Range ${k + 1} in MU`, testid: `range-${k}-mu`, onchange: (e) => { r.mu = Number(e.target.value); } });
    const remove = () => { state.battle.ranges.splice(k, 1); renderRanges(); };
    return h('p', { class: 'range' }, 'Between ', pick(0), ' and ', pick(1), ' ', mu, ' MU ',
      h('button', { type: 'button', class: 'small', onclick: remove }, `Remove range ${k + 1}`));
  }));
}

// ---------- rule switches ([rules], docs/orders.md) ----------

// Key, default, what it does (its reading), and the choices of a switch
// that is not on or off. Only switches set away from the default go into
// the scenario.
const SWITCHES = [
  ['reactor_blast', true, 'A power-core explosion hits the other Units of its Formation (E14)'],
  ['repair_permanent_bridge', true, 'Damage control may restore a Command Bridge lost “permanently” (E13)'],
  ['double_drive_check', false, 'Two or more rows lost in one Volley: the drive rolls twice (E11)'],
  ['needle_fb1', false, 'Needle beams by the FB1 reading (A19)'],
  ['strike_colours', false, 'Ships may strike their colours at threshold checks (V9)'],
  ['pilot_quality', 'off', 'Aces and turkeys from Pilot-Quality (F18)', ['off', 'record']],
  ['fighter_evasion_drm', false, 'Ship Evasion is a DRM against fighter attack runs (F6)'],
  ['pd_evasion_reroll', 'any_miss', 'Which missed point-defence dice an Evasion Point rerolls (W8)', ['any_miss', 'once_per_die']],
  ['vapour_shroud_own_fire', true, 'A vapour shroud screens its own ship’s fire too (W38)'],
  ['plasma_bolt_formation', false, 'A plasma bolt bursts on every ship of the target Formation (W37)'],
  ['antimatter_pd_heavy', false, 'Point defence meets antimatter missiles on the heavy-missile column (W54)'],
  ['wave_gun_formation', false, 'A wave gun’s template touches every ship of the target Formation (W59)'],
  ['nova_cannon_formation', false, 'A nova cannon’s blast touches every ship of the target Formation (W64)'],
  ['reroll_depth', 'per_generation', 'Where beam rerolls go in layered armour (W33)', ['per_generation', 'next_layer']],
  ['emp_advanced_screens', true, 'Advanced screens stop EMP projector dice (W43)'],
  ['needle_six_scores', false, 'A needle beam’s natural 6 always scores its damage point (W11)'],
];

function renderRules() {
  const rules = state.battle.rules || (state.battle.rules = {});
  const summary = () => {
    const n = Object.keys(rules).length;
    $('rules-summary').textContent = n ? `(${n} set away from fam’s readings)` : '(all as fam reads the rules)';
  };
  const set = (key, value, byDefault) => {
    if (value === byDefault) delete rules[key];
    else rules[key] = value;
    summary();
  };
  summary();
  $('rules').replaceChildren(...SWITCHES.map(([key, byDefault, words, choices]) => {
    const current = key in rules ? rules[key] : byDefault;
    const control = choices
      ? h('select', { testid: `rule-${key}`, onchange: (e) => set(key, e.target.value, byDefault) },
        choices.map((c) => h('option', { value: c }, c === byDefault ? `${c} (default)` : c)))
      : h('input', { type: 'checkbox', testid: `rule-${key}`, onchange: (e) => set(key, e.target.checked, byDefault) });
    if (choices) control.value = current;
    else control.checked = current === true;
    return h('p', { class: 'rule' }, h('label', {}, control, ' ', words, ' ', h('code', {}, key)));
  }));
}

// ---------- victory conditions beyond the Exchange limit and morale ----------

// The [victory] lists, each entry a condition that names its winner.
const CONDITIONS = [
  ['unit_destroyed', 'is destroyed or abandoned'],
  ['unit_escaped', 'reaches the Reserve'],
  ['points', 'destroys enemy points'],
];

function conditionList() {
  const v = state.battle.victory;
  return CONDITIONS.flatMap(([kind]) => (v[kind] || []).map((c, k) => ({ kind, c, k })));
}

function renderConditions() {
  const v = state.battle.victory;
  const units = allUnits(state.battle);
  const sides = state.battle.sides.map((s) => s.name);
  const select = (label, testid, options, value, set) => {
    const sel = h('select', { 'aria-label': label, testid, onchange: (e) => set(e.target.value) },
      options.map((o) => h('option', { value: o }, o)));
    sel.value = value;
    return sel;
  };
  $('conditions').replaceChildren(...conditionList().map(({ kind, c, k }, n) => {
    const remove = () => {
      v[kind].splice(k, 1);
      if (!v[kind].length) delete v[kind];
      renderConditions();
    };
    // Switching the kind keeps the winner and fills in what the new kind needs.
    const switchKind = (to) => {
      v[kind].splice(k, 1);
      if (!v[kind].length) delete v[kind];
      const entry = to === 'points' ? { winner: c.winner, points: c.points || 100 } : { unit: c.unit || units[0] || '', winner: c.winner };
      (v[to] = v[to] || []).push(entry);
      renderConditions();
    };
    const kindSelect = h('select', { 'aria-label': `Condition ${n + 1}: when`, testid: `condition-${n}-kind`, onchange: (e) => switchKind(e.target.value) },
      CONDITIONS.map(([x, words]) => h('option', { value: x }, x === 'points' ? 'a side destroys enemy points' : `a Unit ${words}`)));
    kindSelect.value = kind;
    const what = kind === 'points'
      ? [select(`Condition ${n + 1}: the side`, `condition-${n}-winner`, sides, c.winner, (w) => { c.winner = w; }),
        ' destroys ', h('input', { type: 'number', min: '1', step: '1', value: c.points, 'aria-label': `Condition ${n + 1}: points`,
          testid: `condition-${n}-points`, onchange: (e) => { c.points = Number(e.target.value); } }), ' enemy points: it wins']
      : [select(`Condition ${n + 1}: the Unit`, `condition-${n}-unit`, units, c.unit, (u) => { c.unit = u; }),
        ` ${CONDITIONS.find(([x]) => x === kind)[1]}: `,
        select(`Condition ${n + 1}: the winner`, `condition-${n}-winner`, sides, c.winner, (w) => { c.winner = w; }), ' wins'];
    return h('p', { class: 'condition' }, kindSelect, ': ', ...what, ' ',
      h('button', { type: 'button', class: 'small', onclick: remove }, `Remove condition ${n + 1}`));
  }));
}

// A renamed side stays the winner of the conditions that named it.
function renameWinner(from, to) {
  for (const { c } of conditionList()) if (c.winner === from) c.winner = to;
}

function addCondition() {
  const units = allUnits(state.battle);
  const sides = state.battle.sides.map((s) => s.name);
  if (!sides.length) return;
  const v = state.battle.victory;
  // A Unit's loss wins for the first other side; with no Unit yet, points.
  const kind = units.length ? 'unit_destroyed' : 'points';
  const entry = kind === 'points' ? { winner: sides[0], points: 100 } : { unit: units[0], winner: sides[1] || sides[0] };
  (v[kind] = v[kind] || []).push(entry);
  renderConditions();
}

function renderTargets() {
  const select = $('target-formation');
  select.replaceChildren(...state.battle.sides.flatMap((s, i) => s.formations.map((f, j) =>
    h('option', { value: `${i}/${j}` }, `${s.name}: ${f.name}`))));
  select.value = `${target.side}/${target.formation}`;
  const tune = $('tune-side');
  const previous = tune.value;
  tune.replaceChildren(...state.battle.sides.map((s) => h('option', { value: s.name }, s.name)));
  if (state.battle.sides.some((s) => s.name === previous)) tune.value = previous;
}

// ---------- ship lists: the library and the user's files ----------

function shipTable(file, ships) {
  const used = new Set(allUnits(state.battle));
  // The Add button first: on a phone it is in view without scrolling the table.
  const rows = ships.map((ship) => h('tr', {},
    h('td', {}, h('button', {
      type: 'button', class: 'small add-ship', testid: `add:${ship.name}`, 'aria-label': `Add ${ship.name}`,
      'data-ship': ship.name, 'data-file': file, 'data-kind': ship.kind ?? '', disabled: used.has(ship.name) && ship.kind !== 'ship',
      onclick: () => addShip(file, ship.name),
    }, addLabel(used.has(ship.name), ship.kind))),
    h('td', {}, ship.name), h('td', {}, ship.class ?? ''), h('td', { class: 'num' }, ship.mass ?? ''),
    h('td', { class: 'num' }, ship.points ?? ''), h('td', { class: 'num' }, ship.thrust ?? ''), h('td', {}, ship.kind ?? '')));
  return h('div', { class: 'scroll' }, h('table', { class: 'ships' },
    h('thead', {}, h('tr', {}, ['', 'Ship', 'Class', 'Mass', 'Points', 'Thrust', 'Kind'].map((c) => h('th', { scope: 'col' }, c)))),
    h('tbody', {}, rows)));
}

function addShip(file, name) {
  const side = state.battle.sides[target.side];
  const formation = side && side.formations[target.formation];
  if (!formation) return showError(new Error('Pick a Formation to add ships to first.'));
  // Another of a design already in this Formation goes beside it.
  const at = formation.units.lastIndexOf(name);
  formation.units.splice(at < 0 ? formation.units.length : at + 1, 0, name);
  state.origin[name] = file;
  clearStatus();
  renderBattle();
  refocus(`add:${name}`);
}

// A ship design may be added again (one more of it); a base or a group once.
function addLabel(inBattle, kind) {
  if (!inBattle) return 'Add';
  return kind === 'ship' ? 'Add another' : 'In the battle';
}

// After a redraw of the builder only the buttons' states change.
function renderShipButtons() {
  const used = new Set(allUnits(state.battle));
  for (const button of document.querySelectorAll('button.add-ship')) {
    const inBattle = used.has(button.dataset.ship);
    button.disabled = inBattle && button.dataset.kind !== 'ship';
    button.textContent = addLabel(inBattle, button.dataset.kind);
  }
}

function fileBlock(file, ships, extra) {
  return h('details', { class: 'file', testid: `file:${file}` },
    h('summary', {}, `${file} (${ships.length} ${ships.length === 1 ? 'ship' : 'ships'})`),
    extra, shipTable(file, ships));
}

function renderLibrary() {
  $('library').replaceChildren(...library.map((f) => fileBlock(f.name, f.ships,
    h('p', {}, h('a', { href: `/api/library/${encodeURIComponent(f.name)}`, download: f.name }, `Download ${f.name}`)))));
}

function renderUploads() {
  $('uploads').replaceChildren(...state.uploads.map((u) => {
    const remove = () => {
      for (const side of state.battle.sides) {
        for (const f of side.formations) f.units = f.units.filter((n) => state.origin[n] !== u.name);
      }
      state.uploads = state.uploads.filter((x) => x !== u);
      delete uploadShips[u.name];
      renderUploads();
      renderBattle();
    };
    const block = fileBlock(u.name, uploadShips[u.name] || [],
      h('p', {}, h('button', { type: 'button', class: 'small', onclick: remove }, `Remove ${u.name}`)));
    block.open = true;
    return block;
  }));
}

async function readUpload(name, text) {
  const res = await api('POST', '/api/ships', { name, text });
  const file = res.file;
  const existing = state.uploads.find((u) => u.name === file.name);
  if (existing) existing.text = file.text;
  else state.uploads.push({ name: file.name, text: file.text });
  uploadShips[file.name] = res.ships;
  return res.warnings || [];
}

async function addFiles(files) {
  const box = $('upload-errors');
  box.replaceChildren();
  for (const file of files) {
    try {
      if (file.size > MAX_UPLOAD) throw new ApiError(`${file.name} is larger than 1 MiB: fam serve takes files up to 1 MiB`);
      const warnings = await readUpload(file.name, await file.text());
      if (warnings.length) box.append(h('div', { class: 'warning' }, h('p', {}, `${file.name}: warnings`), diagnosticList(warnings)));
    } catch (err) {
      box.append(h('div', { class: 'error' }, ...errorBlock(err).filter(Boolean)));
    }
  }
  renderUploads();
  renderBattle();
}

function renderDownloads() {
  const links = battleFiles().map((f) => {
    const href = f.text === undefined ? `/api/library/${encodeURIComponent(f.name)}`
      : URL.createObjectURL(new Blob([f.text], { type: 'text/plain' }));
    return h('a', { href, download: f.name, testid: `download:${f.name}` }, f.name);
  });
  const old = $('downloads');
  for (const a of old.querySelectorAll('a[href^="blob:"]')) URL.revokeObjectURL(a.href);
  old.replaceChildren(...(links.length ? ['Ships: ', ...links.flatMap((a, k) => (k ? [', ', a] : [a]))] : []));
}

function saveText(name, text) {
  const url = URL.createObjectURL(new Blob([text], { type: 'text/plain' }));
  const a = h('a', { href: url, download: name, hidden: true });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}

async function downloadScenario() {
  const res = await api('POST', '/api/scenario', battleForServer());
  saveText('scenario.toml', res.toml);
  if (res.warnings && res.warnings.length) {
    showError({ message: 'fam accepted the battle with warnings:', diagnostics: res.warnings });
  } else {
    clearStatus();
  }
}

// ---------- jobs: batch, compare, tune, solve ----------

function readRunSettings() {
  const runs = Number($('runs').value);
  const seed = $('seed').value.trim() || '0';
  if (!Number.isInteger(runs) || runs < 1 || runs > 100000) throw new ApiError('Runs: a whole number from 1 to 100 000.');
  if (!/^\d+$/.test(seed) || BigInt(seed) > 18446744073709551615n) throw new ApiError('Seed: a whole number from 0 to 18446744073709551615.');
  state.runs = runs;
  state.seed = seed;
  return { runs, seed: new U64(seed) };
}

function setBusy(busy) {
  for (const id of ['run-batch', 'tune', 'solve', 'compare']) $(id).disabled = busy || (id === 'compare' && !snapshotA);
  $('cancel').disabled = !busy;
}

// What the progress line says a job's runs are, beyond the count.
const RUNS_MEAN = {
  tune: (runs) => `: Tune plays many standing orders, each on up to ${runs} runs`,
  solve: (runs) => `: each pair of orders is played on up to ${runs} runs`,
  compare: (runs) => `: ${runs} runs of A and ${runs} of B`,
};

async function startJob(kind, path, body) {
  clearStatus();
  if (!checkBattle()) return;
  const res = await api('POST', path, body);
  job = { id: res.job, kind, battle: body.battle || body.b, runs: body.runs, a: body.a, b: body.b };
  setBusy(true);
  $('progress-line').hidden = false;
  showProgress({ done: 0, total: null });
  poll();
}

function showProgress(status) {
  const total = status.total || 1;
  $('progress').max = total;
  $('progress').value = status.state === 'done' ? total : status.done || 0;
  const cancelling = job && job.cancelling ? ' (cancelling…)' : '';
  const means = job && RUNS_MEAN[job.kind] ? RUNS_MEAN[job.kind](job.runs) : '';
  $('progress-text').textContent = `${status.done || 0} of ${status.total ?? '…'} runs${means}${cancelling}`;
}

async function poll() {
  if (!job) return;
  let status;
  try {
    status = await api('GET', `/api/jobs/${encodeURIComponent(job.id)}`);
  } catch (err) {
    job = null;
    setBusy(false);
    return showError(err);
  }
  showProgress(status);
  if (status.state === 'running') {
    setTimeout(poll, 200);
    return;
  }
  const finished = job;
  job = null;
  setBusy(false);
  finishJob(finished, status);
}

function finishJob(finished, status) {
  if (status.state === 'failed') return showError(new ApiError(status.error?.message || 'The job failed.', status.error));
  if (status.state === 'cancelled') {
    showNote(status.result ? `Cancelled after ${status.done} of ${status.total} runs: the results below count the runs played.`
      : `Cancelled after ${status.done} of ${status.total} runs, before there was a result.`);
  }
  else if (status.stopped === 'time' || status.result?.stopped === 'time') showNote(`Stopped at the time limit after ${status.done} runs.`);
  if (!status.result) return;
  if (finished.kind === 'batch') showBatch(status.result, finished.battle);
  else if (finished.kind === 'solve') showSolve(status.result);
  else if (finished.kind === 'tune') showTune(status.result);
  else showCompare(status.result, finished.a, finished.b);
}

async function cancelJob() {
  if (!job) return;
  job.cancelling = true;
  $('cancel').disabled = true;
  await api('DELETE', `/api/jobs/${encodeURIComponent(job.id)}`);
}

async function runBatch() {
  const { runs, seed } = readRunSettings();
  await startJob('batch', '/api/batch', { battle: battleForServer(), runs, seed });
}

async function runTune() {
  const { runs, seed } = readRunSettings();
  await startJob('tune', '/api/tune', { battle: battleForServer(), side: $('tune-side').value, runs, seed });
}

async function runSolve() {
  const { runs, seed } = readRunSettings();
  await startJob('solve', '/api/solve', { battle: battleForServer(), runs, seed });
}

function takeSnapshot() {
  snapshotA = battleForServer();
  $('snapshot-note').textContent = `A is kept (${allUnits(snapshotA).length} ships). Edit the battle, then compare.`;
  setBusy(false);
}

async function runCompare() {
  const { runs, seed } = readRunSettings();
  await startJob('compare', '/api/compare', { a: snapshotA, b: battleForServer(), runs, seed });
}

// ---------- results ----------

const pct = (x) => (x === null || x === undefined ? '–' : `${(x * 100).toFixed(1)} %`);
const interval = (ci) => (ci ? `[${(ci[0] * 100).toFixed(1)}, ${(ci[1] * 100).toFixed(1)}]` : '');
const num = (x, d = 1) => (x === null || x === undefined ? '–' : Number(x).toFixed(d));

// A table in its own scroll box: a wide one never widens the page.
function table(caption, headers, rows, testid) {
  return h('div', { class: 'scroll' }, h('table', { testid },
    h('caption', {}, caption),
    h('thead', {}, h('tr', {}, headers.map((c) => h('th', { scope: 'col' }, c)))),
    h('tbody', {}, rows)));
}

function cell(value, testid, numeric = true) {
  return h('td', { class: numeric ? 'num' : null, testid }, value);
}

function outcomes(batch) {
  const rows = batch.sides.map((s) => h('tr', {},
    h('th', { scope: 'row' }, `${s.name} wins`), cell(s.wins, `wins:${s.name}`),
    cell(pct(s.win_rate), `rate:${s.name}`), cell(interval(s.ci95), `ci:${s.name}`)));
  rows.push(h('tr', {}, h('th', { scope: 'row' }, 'Draw'), cell(batch.draws, 'draws'),
    cell(pct(batch.draw_rate), 'draw-rate'), cell(interval(batch.draw_ci95), 'draw-ci')));
  if (batch.undecided) {
    rows.push(h('tr', {}, h('th', { scope: 'row' }, 'Undecided'), cell(batch.undecided, 'undecided'), cell(pct(batch.undecided_rate)), cell('')));
  }
  return table('Outcomes (95 % intervals)', ['Outcome', 'Runs', 'Rate', '95 % interval'], rows, 'outcomes');
}

function decidedBy(batch) {
  const parts = Object.entries(batch.decided_by || {}).filter(([, n]) => n).map(([k, n]) => `${k.replace(/_/g, ' ')} ${n}`);
  const ex = batch.exchanges;
  return h('p', {}, `Decided by: ${parts.join(', ') || 'nothing'}. `,
    ex && ex.mean !== null ? `Exchanges per battle: mean ${num(ex.mean)}, median ${ex.p50}, at most ${ex.max}.` : '');
}

function pointsLost(batch) {
  const rows = batch.sides.map((s) => {
    const d = s.points_lost || {};
    return h('tr', {}, h('th', { scope: 'row' }, s.name), cell(num(d.mean), `points:${s.name}`),
      cell(d.ci95 ? `[${num(d.ci95[0])}, ${num(d.ci95[1])}]` : ''), cell(d.p50 ?? '–'), cell(d.max ?? '–'));
  });
  return table('Points lost per battle', ['Side', 'Mean', '95 % interval', 'Median', 'Most'], rows, 'points-lost');
}

function sideName(batch, id) {
  const side = batch.sides.find((s) => s.id === id);
  return side ? side.name : String(id);
}

function unitFates(batch) {
  const rows = batch.units.map((u) => h('tr', {},
    h('th', { scope: 'row' }, u.name), cell(sideName(batch, u.side), null, false), cell(u.formation, null, false),
    cell(pct(u.destroyed_rate), `destroyed:${u.name}`), cell(pct(u.surrendered_rate)), cell(pct(u.withdrawn_rate)),
    cell(pct(u.crippled_rate)), cell(pct(u.damaged_rate)), cell(pct(u.untouched_rate)),
    cell(`${num(u.mean_hull_damage)} of ${u.hull}`), cell(pct(u.survive_if_side_wins))));
  return table('The Units’ fates', ['Unit', 'Side', 'Formation', 'Destroyed', 'Surrendered', 'Withdrawn',
    'Crippled', 'Damaged', 'Untouched', 'Hull lost', 'Alive if won'], rows, 'fates');
}

function plot(svg) {
  if (!svg) return null;
  const src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`;
  return h('figure', { class: 'scroll plot-box' }, h('img', { src, alt: 'Outcomes, the Units’ fates and the battles’ lengths', testid: 'plot' }));
}

function notableRuns(batch) {
  const ns = batch.notable_seeds || {};
  const list = [];
  for (const w of ns.wins || []) if (w.first) list.push([`${w.name}’s first win${w.upset ? ' (an upset)' : ''}`, w.first]);
  if (ns.longest) list.push([`the longest battle (${ns.longest.exchanges} Exchanges)`, ns.longest]);
  if (ns.first_draw) list.push(['the first draw', ns.first_draw]);
  if (ns.first_undecided) list.push(['the first undecided run', ns.first_undecided]);
  for (const d of ns.unit_deaths || []) if (d.first) list.push([`${d.name} first lost`, d.first]);
  return list;
}

function notableBlock(batch, battle) {
  const items = notableRuns(batch).map(([label, run]) => h('li', {},
    h('button', { type: 'button', class: 'small', testid: `replay:${run.run}`, onclick: guarded(() => replay(battle, run, batch.exchanges_cap)) },
      `Replay run ${run.run}`), ` ${label} (seed ${run.seed})`));
  return h('div', {}, h('h3', {}, 'Notable runs'), items.length ? h('ul', { testid: 'notable' }, items) : h('p', {}, 'None.'));
}

// What the odds hinge on: weapons the commanders left idle, switched rules,
// disputed readings. Shown above the odds, as the CLI prints them under its table.
function hingeNotes(notes) {
  if (!notes || !notes.length) return null;
  return h('div', { class: 'hinges', role: 'note', testid: 'hinges' },
    h('h3', {}, 'The odds hinge on'), h('ul', {}, notes.map((n) => h('li', {}, n.replace(/^Note: /, '')))));
}

// The answer at a glance, in the dock: `Ilse 58 % [51, 65] · draw 3 % · Marek 40 % [33, 47]`.
function headline(batch) {
  const whole = (x) => Math.round(x * 100);
  const side = (s) => `${s.name} ${whole(s.win_rate)} % [${whole(s.ci95[0])}, ${whole(s.ci95[1])}]`;
  const parts = batch.sides.map(side);
  parts.splice(1, 0, `draw ${whole(batch.draw_rate)} %`);
  return parts.join(' · ');
}

function showHeadline(text, section) {
  const line = $('headline');
  line.classList.remove('stale');
  line.replaceChildren(h('span', { testid: 'headline-text' }, text), ' ', h('a', { href: `#${section}` }, 'details below'));
  line.hidden = false;
}

function showBatch(result, battle) {
  const batch = result.batch;
  $('results').hidden = false;
  markFresh('results');
  showHeadline(headline(batch), 'results');
  $('results-note').textContent = `${batch.runs} runs of “${batch.title || battle.title}”, base seed ${batch.seed}, at most ${batch.exchanges_cap} Exchanges each.`;
  // replaceChildren would write a null as the text "null".
  $('result-body').replaceChildren(...[
    hingeNotes(result.notes), outcomes(batch), decidedBy(batch), pointsLost(batch), unitFates(batch), plot(result.svg), notableBlock(batch, battle),
    h('details', {}, h('summary', {}, 'As the command line prints it'),
      h('p', {}, h('code', { testid: 'command' }, result.command || '')), h('pre', { testid: 'table' }, result.table || '')),
  ].filter(Boolean));
}

// Tune, Compare and Solve answer in their own section: the batch's odds stay.
function showAnalysis(note, ...body) {
  $('analysis').hidden = false;
  markFresh('analysis');
  $('analysis-note').textContent = note;
  $('analysis-body').replaceChildren(...body.filter(Boolean));
}

// `fam tune`'s table, and a button that gives the tuned side's Formations
// the best orders found.
function showTune(result) {
  const tuned = result.json || {};
  const best = (tuned.finalists || [])[0];
  const use = () => {
    for (const [name, doctrine] of Object.entries(result.best || {})) {
      const formation = state.battle.sides.flatMap((s) => s.formations).find((f) => f.name === name);
      if (formation) formation.doctrine = structuredClone(doctrine);
    }
    renderBattle();
    showNote(`${tuned.side}’s Formations now have the tuned orders (${best.orders}). Run for the odds with them.`);
    refocus('use-tuned');
  };
  const verdict = tuned.verdict === 'use_best'
    ? `The best orders found beat the default doctrine on fresh runs: ${best.orders}.`
    : `No orders tried beat the default doctrine on fresh runs${best ? `; the best found was ${best.orders}` : ''}.`;
  if (best) showHeadline(`Tuned ${tuned.side}: ${pct(best.win_rate)} with the best orders found, ${pct(tuned.default.win_rate)} with the default`, 'analysis');
  showAnalysis(`Tuned standing orders for ${tuned.side}`,
    h('p', { testid: 'tune-verdict' }, verdict),
    result.best ? h('p', {}, h('button', { type: 'button', testid: 'use-tuned', onclick: use }, 'Use these orders'),
      ` gives ${Object.keys(result.best).join(', ')} the best orders found.`) : null,
    h('pre', { testid: 'tune-text' }, result.text || ''));
}

// What changed from battle A to battle B, in a few words each.
function differences(a, b) {
  const out = [];
  const said = (x) => JSON.stringify(x ?? null);
  if (a.title !== b.title) out.push(`title “${a.title}” → “${b.title}”`);
  if (a.start_range !== b.start_range) out.push(`starting range ${a.start_range} → ${b.start_range} MU`);
  if (said(a.ranges) !== said(b.ranges)) out.push('the ranges between Formations');
  if (said(a.victory) !== said(b.victory)) out.push('victory');
  if (said(a.rules) !== said(b.rules)) out.push('rule switches');
  const formations = (x) => new Map(x.sides.flatMap((s) => s.formations.map((f) => [f.name, { side: s.name, f }])));
  const fa = formations(a);
  const fb = formations(b);
  for (const [name, { side, f }] of fb) {
    const old = fa.get(name);
    if (!old) { out.push(`${side} gains Formation ${name}`); continue; }
    const count = (units) => units.reduce((m, u) => m.set(u, (m.get(u) || 0) + 1), new Map());
    const [ca, cb] = [count(old.f.units), count(f.units)];
    for (const u of new Set([...ca.keys(), ...cb.keys()])) {
      const d = (cb.get(u) || 0) - (ca.get(u) || 0);
      if (d) out.push(`${name}: ${d > 0 ? '+' : '−'}${Math.abs(d)} ${u}`);
    }
    if (said(old.f.doctrine) !== said(f.doctrine)) out.push(`${name}’s standing orders`);
  }
  for (const [name, { side }] of fa) if (!fb.has(name)) out.push(`${side} loses Formation ${name}`);
  return out;
}

// `fam compare`'s table, with A and B named by what differs and every
// difference B − A.
function showCompare(result, a, b) {
  const diff = differences(a, b);
  const what = diff.length ? diff.join('; ') : 'nothing (the same battle twice)';
  const sides = (result.json && result.json.sides) || [];
  const pp = (x) => `${x >= 0 ? '+' : '−'}${Math.abs(x * 100).toFixed(1)}`;
  const change = sides.map((s) => `${s.name_b || s.name_a} ${pp(s.paired_difference)} pp [${pp(s.paired_ci95[0])}, ${pp(s.paired_ci95[1])}]`);
  showHeadline(`B − A: ${change.join(' · ')}`, 'analysis');
  showAnalysis('A against B',
    h('p', { testid: 'compare-what' }, `A is the battle kept; B is A with: ${what}. Every difference below is B − A, what the change did.`),
    h('pre', { testid: 'compare-text' }, result.text || ''));
}

// `fam solve`'s answer in a player's words: each side's orders, the odds
// at the equilibrium beside the default doctrine's, and how far either
// side could gain by changing its orders; the full text below.
function showSolve(result) {
  const solved = result.json;
  const [a, b] = solved.sides.map((s) => s.name);
  const odds = (o) => `${a} wins ${pct(o.a_wins.mean)} ${interval(o.a_wins.ci95)}, `
    + `draws ${pct(o.draws.mean)} ${interval(o.draws.ci95)}, ${b} wins ${pct(o.b_wins.mean)} ${interval(o.b_wins.ci95)}.`;
  // "(the default doctrine)" as words; changed keys as the default doctrine with them.
  const words = (label) => (/^\(.*\)$/.test(label) ? label.slice(1, -1) : `the default doctrine with ${label}`);
  const orders = (side) => {
    if (side.strategies.length === 1) return h('li', {}, `${side.name} plays ${words(side.strategies[0].orders)}.`);
    return h('li', {}, `${side.name} mixes its orders, drawn anew each battle:`,
      h('ul', {}, side.strategies.map((s) => h('li', {}, `${pct(s.weight)} of battles: ${words(s.orders)}`))));
  };
  const gain = Math.max(0, ...solved.sides.map((s) => s.best_deviation.gain.mean));
  const bound = `Neither side gains more than ${num(gain * 100)} points by changing its orders`
    + ` (the best change found, tried on ${solved.runs.confirm[1] - solved.runs.confirm[0]} fresh runs).`;
  showHeadline(`Both play their best: ${odds(solved.equilibrium)}`, 'analysis');
  showAnalysis(`Both sides play their best: ${result.command}`,
    h('div', { testid: 'solve' },
      h('ul', { testid: 'solve-orders' }, solved.sides.map(orders)),
      h('p', { testid: 'solve-equilibrium' }, `If both sides play their best: ${odds(solved.equilibrium)}`),
      h('p', { testid: 'solve-default' }, `With the default doctrine: ${odds(solved.default)}`),
      h('p', { testid: 'solve-bound' }, bound,
        solved.converged ? null : ' The search stopped at its budget before it showed that no change gains more than the margin.'),
      h('details', {}, h('summary', {}, 'As fam solve prints it'), h('pre', { testid: 'solve-text' }, result.text || ''))));
}

// ---------- replay ----------

// The seed exactly: from the parsed number where it stayed exact, else from the command.
function exactSeed(run) {
  if (run.seed instanceof U64 || Number.isSafeInteger(run.seed)) return new U64(String(run.seed));
  const m = /--seed (\d+)/.exec(run.command || '');
  return new U64(m ? m[1] : String(run.seed));
}

// Splits a report at its headings: a line underlined with `=` (the battle,
// each Exchange) and the closing `Result`.
function exchangesOf(report) {
  const lines = report.split('\n');
  const parts = [];
  lines.forEach((line, k) => {
    const under = lines[k + 1] || '';
    const heading = line.trim() && ((/^=+$/.test(under) && under.length === line.length) || (line === 'Result' && /^-+$/.test(under)));
    if (heading || !parts.length) parts.push({ title: line || 'Report', lines: [] });
    parts[parts.length - 1].lines.push(line);
  });
  return parts;
}

async function replay(battle, run, exchanges) {
  const res = await api('POST', '/api/replay', { battle, seed: exactSeed(run), exchanges });
  $('replay').hidden = false;
  $('replay-command').replaceChildren(`Run ${run.run}: `, h('code', {}, res.command || ''));
  const parts = exchangesOf(res.report || '');
  $('replay-body').replaceChildren(...parts.map((p, k) =>
    h('details', { open: k === 0 || k === parts.length - 1 }, h('summary', {}, p.title), h('pre', {}, p.lines.join('\n')))));
  $('replay').scrollIntoView({ behavior: 'smooth', block: 'start' });
}

// ---------- the share link: #b=base64url(deflate-raw(JSON)) ----------

function toBase64Url(bytes) {
  let bin = '';
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromBase64Url(text) {
  const bin = atob(text.replace(/-/g, '+').replace(/_/g, '/'));
  return Uint8Array.from(bin, (c) => c.charCodeAt(0));
}

async function squeeze(bytes, stream) {
  return new Uint8Array(await new Response(new Blob([bytes]).stream().pipeThrough(stream)).arrayBuffer());
}

async function shareLink() {
  readRunSettings();
  const shared = { v: 1, battle: battleForServer(), runs: state.runs, seed: state.seed };
  const packed = await squeeze(new TextEncoder().encode(JSON.stringify(shared)), new CompressionStream('deflate-raw'));
  const url = `${location.origin}${location.pathname}#b=${toBase64Url(packed)}`;
  history.replaceState(null, '', url);
  $('share-link').value = url;
  $('share-link').select();
  return url;
}

async function readShared(fragment) {
  const bytes = await squeeze(fromBase64Url(fragment), new DecompressionStream('deflate-raw'));
  const shared = JSON.parse(new TextDecoder().decode(bytes));
  if (!shared || !shared.battle || !Array.isArray(shared.battle.sides)) throw new Error('no battle in it');
  return shared;
}

// Puts a shared battle back: its own files are read again for their ships.
async function restore(shared) {
  const { files, ...battle } = shared.battle;
  state.battle = battle;
  state.battle.ranges = battle.ranges || [];
  state.runs = shared.runs || state.runs;
  state.seed = String(shared.seed ?? state.seed);
  state.uploads = [];
  for (const f of files || []) {
    if (f.text !== undefined) await readUpload(f.name, f.text);
  }
  state.origin = {};
  for (const unit of allUnits(state.battle)) {
    const from = (files || []).find((f) => shipsOf(f.name).some((s) => s.name === unit));
    if (from) state.origin[unit] = from.name;
  }
}

// ---------- start ----------

function bindInputs() {
  $('title').addEventListener('change', (e) => { state.battle.title = e.target.value; });
  $('start-range').addEventListener('change', (e) => { state.battle.start_range = Number(e.target.value); });
  $('max-exchanges').addEventListener('change', (e) => { state.battle.victory.max_exchanges = Number(e.target.value); });
  $('morale').addEventListener('change', (e) => { state.battle.victory.morale = Number(e.target.value); });
  $('morale-on').addEventListener('change', (e) => {
    state.battle.victory.morale = e.target.checked ? Number($('morale').value) || 50 : false;
    renderBattle();
  });
  $('target-formation').addEventListener('change', (e) => {
    const [side, formation] = e.target.value.split('/').map(Number);
    target = { side, formation };
    renderBattle();
  });
  $('add-side').addEventListener('click', () => {
    const name = `Side ${state.battle.sides.length + 1}`;
    state.battle.sides.push({ name, formations: [{ name: uniqueName(`${name} 1`), units: [], doctrine: null }] });
    renderBattle();
  });
  $('add-condition').addEventListener('click', guarded(addCondition));
  $('add-range').addEventListener('click', () => {
    const names = formationNames();
    state.battle.ranges.push({ between: [names[0], names[1] || names[0]], mu: state.battle.start_range });
    renderRanges();
  });
}

function bindActions() {
  $('run-batch').addEventListener('click', guarded(runBatch));
  // Enter in Runs or Seed runs the batch, as the Run button would.
  for (const id of ['runs', 'seed']) {
    $(id).addEventListener('keydown', (e) => {
      if (e.key === 'Enter' && !$('run-batch').disabled) {
        e.preventDefault();
        $('run-batch').click();
      }
    });
  }
  // Edits outside the builder's redraws (the title, ranges, switches …).
  $('battle').addEventListener('change', () => {
    markStale();
    if (placed.length) {
      placed = [];
      renderPlaced();
    }
  });
  // The skip link puts the focus on Run itself.
  document.querySelector('a.skip').addEventListener('click', (e) => {
    e.preventDefault();
    $('run-batch').focus();
  });
  $('cancel').addEventListener('click', guarded(cancelJob));
  $('tune').addEventListener('click', guarded(runTune));
  $('solve').addEventListener('click', guarded(runSolve));
  $('snapshot').addEventListener('click', guarded(takeSnapshot));
  $('compare').addEventListener('click', guarded(runCompare));
  $('share').addEventListener('click', guarded(shareLink));
  $('download-scenario').addEventListener('click', guarded(downloadScenario));
  $('upload').addEventListener('change', guarded((e) => addFiles([...e.target.files])));
  const drop = $('drop');
  drop.addEventListener('dragover', (e) => { e.preventDefault(); drop.classList.add('over'); });
  drop.addEventListener('dragleave', () => drop.classList.remove('over'));
  drop.addEventListener('drop', guarded((e) => {
    e.preventDefault();
    drop.classList.remove('over');
    return addFiles([...e.dataTransfer.files]);
  }));
}

async function start() {
  bindInputs();
  bindActions();
  try {
    library = (await api('GET', '/api/library')).files;
    renderLibrary();
  } catch (err) {
    $('library').replaceChildren(...errorBlock(err).filter(Boolean));
  }
  const fragment = /^#b=([A-Za-z0-9_-]+)$/.exec(location.hash);
  if (fragment) {
    try {
      await restore(await readShared(fragment[1]));
      renderUploads();
    } catch (err) {
      showError(new ApiError(`This link’s battle could not be read: ${err.message}`, err));
    }
  }
  $('runs').value = state.runs;
  $('seed').value = state.seed;
  renderBattle();
  setBusy(false);
  document.body.dataset.ready = 'true';
}

start();
