import {
  johannesburgDate,
  launchPipeline,
  type Pipeline,
  pipelineWindowKeeper,
  stopAndDrop,
} from '@rp/launcher';
import { infra, uniqueName } from '@rp/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { root, testWindows, type WindowsView } from './pipeline.ts';

// The keeper the suites, the bench and the demo use to keep a window they opened open across midnight
// in Johannesburg, on a real scheduler (and the identity provider the bank simulator plays). Its rules
// are unit-tested on a moved clock (packages/launcher); here, what it reads and sends: a keeper told the
// run opened yesterday's window acts as it would on the first look after midnight.
let pipeline: Pipeline;

beforeAll(async () => {
  pipeline = await launchPipeline({
    run: uniqueName('wk'),
    root,
    endpoints: await infra(),
    services: ['bank-simulator', 'scheduler'],
    env: { ...testWindows },
  });
});
afterAll(async () => {
  await stopAndDrop(pipeline);
});

async function windows(): Promise<WindowsView> {
  const response = await fetch(`${pipeline.url('scheduler')}/admin/windows`, {
    headers: { authorization: await pipeline.operatorAuthorization('operator.read') },
  });
  expect(response.status).toBe(200);
  return (await response.json()) as WindowsView;
}

/** A keeper over this pipeline's scheduler, with what it logs. */
function keeper() {
  const lines: string[] = [];
  return { keeper: pipelineWindowKeeper(pipeline, (line) => lines.push(line)), lines };
}

const yesterday = () => johannesburgDate(new Date(Date.now() - 24 * 3_600_000));

describe("the debit window keeper, on a real scheduler's admin API", () => {
  it('opens nothing for a run that has opened no window', async () => {
    const before = await windows();
    expect(before.debitWindow.state).toBe('awaiting-credits');
    const { keeper: idle, lines } = keeper();
    await idle.check();
    expect((await windows()).debitWindow.state).toBe('awaiting-credits');
    expect(lines).toEqual([]);
  });

  it("opens the new business day's window for a run that opened the day before's, once", async () => {
    const { keeper: kept, lines } = keeper();
    kept.opened(yesterday());
    await kept.check();
    const today = await windows();
    expect(today.debitWindow.state).toBe('open');
    expect(today.debitWindow.creditsFinalised).toBe(true);
    expect(kept.openedFor).toBe(today.businessDate);
    expect(lines).toEqual([
      `a new business day (${today.businessDate} in Africa/Johannesburg): its debit window opened, as an operator would`,
    ]);
  });

  it('leaves a window an operator closed closed', async () => {
    const closed = await fetch(`${pipeline.url('scheduler')}/admin/windows/debit/close`, {
      method: 'POST',
      headers: { authorization: await pipeline.operatorAuthorization('operator.replay') },
    });
    expect(closed.status, await closed.text()).toBe(200);
    const { keeper: kept, lines } = keeper();
    kept.opened(yesterday());
    await kept.check();
    expect((await windows()).debitWindow.state).toBe('closed');
    expect(kept.openedFor).toBe(yesterday());
    expect(lines).toEqual([]);
  });

  it('says why when the scheduler cannot be reached, and looks again at the next check', async () => {
    const { keeper: kept, lines } = keeper();
    kept.opened(yesterday());
    await pipeline.kill('scheduler', 'SIGTERM');
    await kept.check();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`^the debit window after ${yesterday()} not opened yet: `));
    await pipeline.start('scheduler');
    // The operator's close of the test before is the scheduler's for the day: kept, so still closed.
    await kept.check();
    expect((await windows()).debitWindow.state).toBe('closed');
    expect(lines).toHaveLength(1);
  });
});
