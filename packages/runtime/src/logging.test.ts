import { describe, expect, it, vi } from 'vitest';
import { lazyChild, transactionLogger } from './logging.ts';
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

  it('makes a transaction child only when it writes a line its level lets through', () => {
    const { logger, lines } = memoryLogger('info');
    const child = vi.spyOn(logger, 'child');
    const log = transactionLogger(logger, { uetr: 'e1f2' });
    log.debug('left out');
    expect(log.isLevelEnabled('debug')).toBe(false);
    expect(log.level).toBe('info');
    expect(child).not.toHaveBeenCalled();
    log.warn({ attempt: 2 }, 'retrying');
    log.info('again');
    expect(child).toHaveBeenCalledTimes(1);
    expect(lines).toEqual([
      expect.objectContaining({ uetr: 'e1f2', attempt: 2, level: 'warn', msg: 'retrying' }),
      expect.objectContaining({ uetr: 'e1f2', level: 'info', msg: 'again' }),
    ]);
  });

  it("gives a lazy child's child both sets of bindings, and follows the parent's level until it is made", () => {
    const { logger, lines } = memoryLogger('info');
    const log = lazyChild(logger, { requestId: 'req-1' });
    const nested = transactionLogger(log, { uetr: 'u-9', messageIdentification: 'MSG-9' });
    nested.debug('left out');
    logger.level = 'debug';
    expect(nested.isLevelEnabled('debug')).toBe(true);
    nested.debug('now written');
    log.child({ step: 'report' }, { level: 'error' }).warn('below its own level');
    expect(lines).toEqual([
      expect.objectContaining({
        requestId: 'req-1',
        uetr: 'u-9',
        messageIdentification: 'MSG-9',
        msg: 'now written',
      }),
    ]);
  });
});
