// Boots the UI: one store, one render function, and the effects that talk to the backend.
import * as api from './api.js';
import { createStore, initialState } from './store.js';
import { pickLanguage, t as translate } from './i18n.js';
import { renderMenu } from './views/menu.js';
import { renderAbout } from './views/about.js';
import { renderSettings } from './views/settings.js';
import { renderSoon } from './views/soon.js';

const LANGUAGE_KEY = 'maharajah.language';

function savedLanguage() {
  try {
    return localStorage.getItem(LANGUAGE_KEY);
  } catch {
    return null;
  }
}

const store = createStore(initialState(pickLanguage(savedLanguage(), navigator.languages || [navigator.language])));
const root = document.getElementById('app');

/** Side effects of an action, after the reducer ran. */
async function effects(action) {
  if (action.type === 'navigate' && action.screen === 'about') {
    store.dispatch({ type: 'versions/loading' });
    try {
      const versions = await api.versions();
      store.dispatch({ type: 'versions/loaded', app: versions.app, engine: versions.engine });
    } catch (error) {
      store.dispatch({ type: 'versions/failed', error });
    }
  }
  if (action.type === 'language') {
    try {
      localStorage.setItem(LANGUAGE_KEY, action.language);
    } catch {
      // Storage can be unavailable (private mode); the choice then lasts for this session.
    }
  }
}

function intent(action) {
  store.dispatch(action);
  effects(action);
}

function view(state) {
  const ctx = { t: (key, params) => translate(state.language, key, params), intent };
  if (state.screen.startsWith('soon:')) return renderSoon(state.screen.slice(5), ctx);
  switch (state.screen) {
    case 'about':
      return renderAbout(state, ctx);
    case 'settings':
      return renderSettings(state, ctx);
    default:
      return renderMenu(state, ctx);
  }
}

function render(state) {
  document.documentElement.lang = state.language;
  document.title = translate(state.language, 'app.title');
  root.replaceChildren(view(state));
  const heading = root.querySelector('h1');
  if (heading && state.screen !== 'menu') heading.setAttribute('tabindex', '-1');
}

store.subscribe(render);
render(store.state);

// The Escape key and the browser/Android back gesture return to the menu.
document.addEventListener('keydown', (event) => {
  if (event.key === 'Escape' && store.state.screen !== 'menu') intent({ type: 'back' });
});
