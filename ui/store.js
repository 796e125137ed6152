// One state object; dispatch(action) runs the pure reducer and re-renders the views.

/** Menu entries in the order people see them. `ready` marks a feature that has landed. */
export const MENU = [
  { id: 'classic', ready: false },
  { id: 'custom', ready: false },
  { id: 'computer', ready: false },
  { id: 'lan', ready: false },
  { id: 'online', ready: false },
  { id: 'horde', ready: false },
  { id: 'chaturaji', ready: false },
  { id: 'learn', ready: false },
  { id: 'settings', ready: true },
  { id: 'about', ready: true },
];

/** @returns the state the app starts in. */
export function initialState(language) {
  return {
    screen: 'menu',
    language,
    versions: { status: 'idle', app: null, engine: null, error: null },
  };
}

/** Pure: the next state for an action. Unknown actions leave the state as it was. */
export function reduce(state, action) {
  switch (action.type) {
    case 'navigate':
      return { ...state, screen: action.screen };
    case 'back':
      return { ...state, screen: 'menu' };
    case 'language':
      return { ...state, language: action.language };
    case 'versions/loading':
      return { ...state, versions: { ...state.versions, status: 'loading', error: null } };
    case 'versions/loaded':
      return {
        ...state,
        versions: { status: 'ready', app: action.app, engine: action.engine, error: null },
      };
    case 'versions/failed':
      return { ...state, versions: { ...state.versions, status: 'error', error: action.error } };
    default:
      return state;
  }
}

/** A tiny store: holds the state, runs the reducer, tells listeners. */
export function createStore(state) {
  const listeners = new Set();
  return {
    get state() {
      return state;
    },
    dispatch(action) {
      const next = reduce(state, action);
      if (next !== state) {
        state = next;
        listeners.forEach((listener) => listener(state));
      }
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
