export { type CommandIo, deliveriesCommand, replayCommand } from './events.ts';
export { deadLettersCommand, reconCommand, type SendSummary, sendCommand } from './ops.ts';
export { progressBar } from './progress.ts';
