import { cdvConfig } from '@rp/cdv';
import { pipelineConfig } from '@rp/pipeline';
import { bool, defineConfig, duration, int, port, str } from '@rp/runtime';

/** Every variable the validator reads; `loadConfig` refuses to start while any of them is invalid. */
export const validatorConfigSpec = defineConfig({
  PORT: port({ default: 8081, doc: 'HTTP port of health and metrics' }),
  ...pipelineConfig('transaction snapshots, read by _id'),
  PARTICIPANTS: str({
    doc: 'Participating banks (debit limits, actioning and creditor banks): a JSON file path or the JSON array',
  }),
  ...cdvConfig,
  CDV_PARAMETER_FILE: str({
    optional: true,
    doc: 'Path of the CDV parameter file (format rp-cdv-parameters/1); required unless RP_ALLOW_SYNTHETIC_CDV',
  }),
  CDV_BRANCH_FILE: str({
    optional: true,
    doc: 'Path of the CDV branch file (format rp-cdv-branches/1); required unless RP_ALLOW_SYNTHETIC_CDV',
  }),
  RP_ALLOW_SYNTHETIC_CDV: bool({
    default: false,
    doc: 'Without CDV files, verify against the synthetic test tables of @rp/cdv (demos and tests only)',
  }),
  DEBIT_MAX_DAYS_AHEAD: int({
    default: 365,
    min: 0,
    doc: 'How many days ahead a requested collection or settlement date may lie (DT01 beyond)',
  }),
  VALIDATOR_KEY_CONCURRENCY: int({
    default: 32,
    min: 1,
    doc: 'Transactions of one partition validated at the same time (CDV is CPU, the duplicate check a read)',
  }),
  VALIDATOR_PARTITIONS_CONCURRENTLY: int({ default: 4, min: 1, doc: 'Partitions handled at the same time' }),
  KAFKA_DELIVERY_TIMEOUT: duration({
    default: 10_000,
    doc: 'Longest wait for the broker to acknowledge produced records before the batch goes to retry',
  }),
  SHUTDOWN_TIMEOUT: duration({
    default: 15_000,
    doc: 'How long the batches in progress may take to finish at shutdown',
  }),
});
