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

/**
 * Makes the Node process whose inspector listens on `port` collect its garbage now: a full, compacting
 * collection (the inspector's `HeapProfiler.collectGarbage`), answered once it is done. A reading of the
 * resident set or the heap after it does not depend on when V8 would have collected by itself.
 */
export async function collectGarbage(port: number, timeoutMs = 30_000): Promise<void> {
  const targets = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as {
    webSocketDebuggerUrl?: string;
  }[];
  const url = targets.find((target) => target.webSocketDebuggerUrl)?.webSocketDebuggerUrl;
  if (url === undefined) throw new Error(`no inspector target on port ${port}`);
  const socket = new WebSocket(url);
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`the collection on port ${port} took over ${timeoutMs} ms`)),
        timeoutMs,
      );
      socket.addEventListener('error', () => {
        clearTimeout(timer);
        reject(new Error(`the inspector on port ${port} failed`));
      });
      socket.addEventListener('open', () =>
        socket.send(JSON.stringify({ id: 1, method: 'HeapProfiler.collectGarbage' })),
      );
      socket.addEventListener('message', (event) => {
        const message = JSON.parse(String(event.data)) as { id?: number; error?: { message: string } };
        if (message.id !== 1) return;
        clearTimeout(timer);
        if (message.error) reject(new Error(`HeapProfiler.collectGarbage: ${message.error.message}`));
        else resolve();
      });
    });
  } finally {
    socket.close();
  }
}
