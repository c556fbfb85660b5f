import { createLogger, type Logger } from './logging.ts';

/** A logger whose JSON lines are kept in memory, so tests can assert on what was logged. */
export function memoryLogger(level: 'debug' | 'info' = 'debug'): {
  logger: Logger;
  lines: Record<string, unknown>[];
} {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger({
    service: 'test',
    level,
    destination: { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) },
  });
  return { logger, lines };
}
