import { packageTestConfig } from '../../vitest.shared.ts';

export default packageTestConfig({ infra: true, timeoutMs: 120_000 });
