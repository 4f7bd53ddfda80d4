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
  const main = document.getElementById('page');
  try {
    await page.module.render(main, args, params);
  } catch (error) {
    main.innerHTML = html`<p class="error">${error.message}</p>`.__html;
  }
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
  await show();
}

start();
