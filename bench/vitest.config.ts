import { packageTestConfig } from '../vitest.shared.ts';

// Unit tests of the benchmarks' arithmetic only; the benchmarks themselves are programs (`npm run bench`).
export default packageTestConfig();
