import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { freePort } from './launch.ts';

describe('freePort', () => {
  it('hands out distinct ports below the ephemeral range that can be listened on', async () => {
    const ports: number[] = [];
    for (let index = 0; index < 50; index += 1) ports.push(await freePort());
    expect(new Set(ports).size).toBe(ports.length);
    for (const port of ports) {
      expect(port).toBeGreaterThanOrEqual(20_000);
      expect(port).toBeLessThan(32_768);
    }
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen({ port: ports[0], exclusive: true }, () => resolve());
    });
    await new Promise((resolve) => server.close(resolve));
  });
});
