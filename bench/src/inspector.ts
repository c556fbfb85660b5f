import { createServer } from 'node:net';

/** A free TCP port on 127.0.0.1 at the time of asking (the bench gives one to each service's inspector). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address !== null
          ? resolve(address.port)
          : reject(new Error('no port')),
      );
    });
  });
}

/** `--inspect` on a port of 127.0.0.1 only, for a service's NODE_OPTIONS. */
export const inspectOption = (port: number) => `--inspect=127.0.0.1:${port}`;

/** A session on a Node process's inspector: methods sent, each answered in turn. */
export interface InspectorSession {
  /** Sends `method`; resolves with its result, rejects with its error or after `timeoutMs`. */
  call(method: string, params?: Record<string, unknown>, timeoutMs?: number): Promise<unknown>;
  close(): void;
}

/** Opens a session on the inspector listening on `port` of 127.0.0.1 (the process's first target). */
export async function inspectorSession(port: number): Promise<InspectorSession> {
  const targets = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as {
    webSocketDebuggerUrl?: string;
  }[];
  const url = targets.find((target) => target.webSocketDebuggerUrl)?.webSocketDebuggerUrl;
  if (url === undefined) throw new Error(`no inspector target on port ${port}`);
  const socket = new WebSocket(url);
  const pending = new Map<
    number,
    { resolve: (result: unknown) => void; reject: (error: Error) => void; timer: NodeJS.Timeout }
  >();
  const failAll = (error: Error) => {
    for (const entry of pending.values()) {
      clearTimeout(entry.timer);
      entry.reject(error);
    }
    pending.clear();
  };
  await new Promise<void>((resolve, reject) => {
    socket.addEventListener('open', () => resolve(), { once: true });
    socket.addEventListener('error', () => reject(new Error(`the inspector on port ${port} failed`)), {
      once: true,
    });
  });
  socket.addEventListener('error', () => failAll(new Error(`the inspector on port ${port} failed`)));
  socket.addEventListener('close', () => failAll(new Error(`the inspector on port ${port} closed`)));
  socket.addEventListener('message', (event) => {
    const message = JSON.parse(String(event.data)) as {
      id?: number;
      result?: unknown;
      error?: { message: string };
    };
    const entry = message.id === undefined ? undefined : pending.get(message.id);
    if (entry === undefined || message.id === undefined) return;
    pending.delete(message.id);
    clearTimeout(entry.timer);
    if (message.error) entry.reject(new Error(message.error.message));
    else entry.resolve(message.result);
  });
  let last = 0;
  return {
    call(method, params = {}, timeoutMs = 30_000) {
      last += 1;
      const id = last;
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          pending.delete(id);
          reject(new Error(`${method} on port ${port} took over ${timeoutMs} ms`));
        }, timeoutMs);
        pending.set(id, {
          resolve,
          reject: (error) => reject(new Error(`${method}: ${error.message}`)),
          timer,
        });
        try {
          socket.send(JSON.stringify({ id, method, params }));
        } catch (error) {
          pending.delete(id);
          clearTimeout(timer);
          reject(error);
        }
      });
    },
    close: () => socket.close(),
  };
}

/**
 * Makes the Node process whose inspector listens on `port` collect its garbage now: a full, compacting
 * collection (the inspector's `HeapProfiler.collectGarbage`), answered once it is done. A reading of the
 * resident set or the heap after it does not depend on when V8 would have collected by itself.
 */
export async function collectGarbage(port: number, timeoutMs = 30_000): Promise<void> {
  const session = await inspectorSession(port);
  try {
    await session.call('HeapProfiler.collectGarbage', {}, timeoutMs);
  } finally {
    session.close();
  }
}
