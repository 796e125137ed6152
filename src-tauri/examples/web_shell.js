// The web shell's page side (src-tauri/examples/web_shell.rs): the two pieces of the Tauri API the
// UI uses, `__TAURI__.core.invoke` and `__TAURI__.event.listen`, over one WebSocket. Loaded as a
// classic script before the UI's modules, so `ui/api.js` finds it as it finds Tauri's own.
(() => {
  const socket = new WebSocket(`ws://${location.host}/ipc`);
  const opened = new Promise((resolve, reject) => {
    socket.addEventListener('open', resolve, { once: true });
    socket.addEventListener('error', () => reject({ code: 'ipc', message: 'the web shell cannot be reached' }), { once: true });
  });
  const waiting = new Map();
  const listeners = new Map();
  let next = 1;
  socket.addEventListener('message', (message) => {
    const data = JSON.parse(message.data);
    if ('event' in data) {
      for (const handler of listeners.get(data.event) ?? []) handler({ event: data.event, payload: data.payload });
      return;
    }
    const call = waiting.get(data.id);
    if (!call) return;
    waiting.delete(data.id);
    if ('ok' in data) call.resolve(data.ok);
    else call.reject(data.err);
  });
  socket.addEventListener('close', () => {
    for (const call of waiting.values()) call.reject({ code: 'ipc', message: 'the web shell closed the connection' });
    waiting.clear();
  });
  globalThis.__TAURI__ = {
    core: {
      async invoke(cmd, args = {}) {
        await opened;
        const id = next++;
        return new Promise((resolve, reject) => {
          waiting.set(id, { resolve, reject });
          socket.send(JSON.stringify({ id, cmd, args }));
        });
      },
    },
    event: {
      async listen(name, handler) {
        const set = listeners.get(name) ?? new Set();
        set.add(handler);
        listeners.set(name, set);
        return () => set.delete(handler);
      },
    },
  };
})();
