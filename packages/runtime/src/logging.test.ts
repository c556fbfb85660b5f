import { describe, expect, it } from 'vitest';
import { transactionLogger } from './logging.ts';
import { memoryLogger } from './memory-logger.ts';

describe('logging', () => {
  it('writes JSON with the service, level name and no secret values', () => {
    const { logger, lines } = memoryLogger('info');
    logger.info(
      {
        headers: {
          authorization: 'Bearer abc.def',
          'webhook-signature': 'v1,sig',
          accept: 'application/json',
        },
        bank: { password: 'pw1', token: 'tok1' },
        secret: 'top',
      },
      'posting sent',
    );
    const [line] = lines;
    expect(line).toMatchObject({ service: 'test', level: 'info', msg: 'posting sent' });
    const text = JSON.stringify(line);
    for (const value of ['abc.def', 'v1,sig', 'pw1', 'tok1', '"top"']) expect(text).not.toContain(value);
    expect(text).toContain('application/json');
  });

  it('adds the transaction identifiers to every line of a child', () => {
    const { logger, lines } = memoryLogger('info');
    transactionLogger(logger, { uetr: 'e1f2', messageIdentification: 'MSG-1' }).info('accepted');
    expect(lines[0]).toMatchObject({ uetr: 'e1f2', messageIdentification: 'MSG-1', msg: 'accepted' });
  });
});
