// The Emulator UI's shell: the navigation, the theme, and the router that shows one page at a time.
import { loadConfig, runs, html, toast } from './api.js';
import * as overview from './overview.js';
import * as auth from './auth.js';
import * as firestore from './firestore.js';
import * as requests from './requests.js';
import * as storage from './storage.js';
import * as database from './database.js';
import * as logs from './logs.js';

/** Every page: its route, title, and the emulator it needs (none for the overview). */
const pages = [
  { route: '', title: 'Overview', module: overview },
  { route: 'auth', title: 'Authentication', module: auth, needs: 'auth' },
  { route: 'firestore', title: 'Firestore', module: firestore, needs: 'firestore' },
  { route: 'database', title: 'Realtime Database', module: database, needs: 'database' },
  { route: 'storage', title: 'Storage', module: storage, needs: 'storage' },
  { route: 'requests', title: 'Requests', module: requests },
  { route: 'logs', title: 'Logs', module: logs },
];

let current = null;

function setTheme(theme) {
  document.documentElement.dataset.theme = theme;
  localStorage.setItem('hearth-theme', theme);
}

function initialTheme() {
  const stored = localStorage.getItem('hearth-theme');
  if (stored === 'light' || stored === 'dark') return stored;
  return matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
}

/** The page, its arguments and parameters for the current hash (`#/firestore/users/alice?database=other`). */
function resolve() {
  const [path, query] = location.hash.replace(/^#\/?/, '').split('?', 2);
  const parts = path.split('/').map(decodeURIComponent);
  const page = pages.find((p) => p.route === parts[0] && (!p.needs || runs(p.needs))) || pages[0];
  return { page, args: page.route ? parts.slice(1).filter((p) => p !== '') : [], params: new URLSearchParams(query || '') };
}

async function show() {
  const { page, args, params } = resolve();
  if (current && current.module.leave) current.module.leave();
  current = page;
  for (const link of document.querySelectorAll('#nav a')) {
    link.toggleAttribute('aria-current', link.dataset.route === page.route);
    if (link.dataset.route === page.route) link.setAttribute('aria-current', 'page');
  }
  document.title = `${page.title} · Hearth Emulator Suite`;
  // Each visit draws into an element of its own: a page left before it finished drawing goes on into an
  // element no longer shown, and its timers stop when they see that.
  const body = document.createElement('div');
  body.innerHTML = '<p class="empty">Loading…</p>';
  document.getElementById('page').replaceChildren(body);
  try {
    await page.module.render(body, args, params);
  } catch (error) {
    if (body.isConnected) body.innerHTML = html`<p class="error">${error.message}</p>`.__html;
  }
}

/** Enter or Space on a focused label that stands for a hidden file input opens the file chooser. */
function openFileChooserFromKeyboard(event) {
  if (event.key !== 'Enter' && event.key !== ' ') return;
  const label = event.target.closest?.('label[tabindex]');
  const input = label?.querySelector('input[type=file]');
  if (!input) return;
  event.preventDefault();
  input.click();
}

async function start() {
  setTheme(initialTheme());
  document.getElementById('theme').addEventListener('click', () => {
    setTheme(document.documentElement.dataset.theme === 'dark' ? 'light' : 'dark');
  });
  try {
    const config = await loadConfig();
    document.getElementById('project').textContent = config.projectId;
  } catch (error) {
    toast(error.message, true);
    return;
  }
  document.getElementById('nav').innerHTML = pages
    .filter((p) => !p.needs || runs(p.needs))
    .map((p) => html`<a href="#/${p.route}" data-route="${p.route}">${p.title}</a>`.__html).join('');
  addEventListener('hashchange', show);
  addEventListener('keydown', openFileChooserFromKeyboard);
  await show();
}

start();
