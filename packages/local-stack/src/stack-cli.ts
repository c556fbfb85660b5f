import { readFileSync } from 'node:fs';
import { type ComponentName, componentLogFile, componentNames, resolveStackConfig } from './config.ts';
import { StackError } from './errors.ts';
import { tailFile } from './process.ts';
import { formatTable, megabytes } from './report.ts';
import { stackDown, stackReset, stackStatus, stackUp } from './stack.ts';

export const stackUsage = `local stack: Kafka 3.9.1, Apicurio Registry 3.3.3, FerretDB 1.24.2 on PostgreSQL 15

  up                 start what is not running (downloads and builds once, into the shared cache)
  down               stop everything and remove the env file
  reset              stop everything and delete its data (every topic, database and schema)
  status             each component's state, memory and data on disk; exits 1 unless all answer
  logs [component]   the last lines of the logs (${componentNames.join(', ')})
  env                print the env file (KAFKA_BROKERS, SCHEMA_REGISTRY_URL, MONGODB_URI, ...)

Ports: RP_STACK_KAFKA_PORT, RP_STACK_KAFKA_CONTROLLER_PORT, RP_STACK_REGISTRY_PORT,
RP_STACK_POSTGRES_PORT, RP_STACK_MONGO_PORT. Folders: RP_STACK_DIR (data, logs), RP_CACHE_DIR (downloads).
`;

function isComponent(name: string): name is ComponentName {
  return (componentNames as readonly string[]).includes(name);
}

/** `rp stack <command>`; returns the exit code. */
export async function stackCli(argv: readonly string[]): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case 'up': {
        const result = await stackUp();
        process.stdout.write(`stack is up; endpoints in ${result.envFile}\n`);
        return 0;
      }
      case 'down': {
        await stackDown();
        process.stdout.write('stack is down\n');
        return 0;
      }
      case 'reset': {
        await stackReset();
        process.stdout.write('stack is down and its data deleted\n');
        return 0;
      }
      case 'status': {
        const status = await stackStatus();
        const rows = status.components.map((component) => [
          component.name,
          String(component.port),
          component.pid === undefined ? '-' : String(component.pid),
          component.state,
          megabytes(component.residentKb),
          megabytes(component.dataKb),
        ]);
        process.stdout.write(
          `${formatTable(['component', 'port', 'pid', 'state', 'RSS MB', 'data MB'], rows)}\n`,
        );
        return status.healthy ? 0 : 1;
      }
      case 'logs': {
        const config = resolveStackConfig();
        const wanted = rest[0];
        if (wanted !== undefined && !isComponent(wanted)) {
          process.stderr.write(`unknown component "${wanted}"; one of ${componentNames.join(', ')}\n`);
          return 2;
        }
        const names = wanted === undefined ? componentNames : [wanted];
        const lines = wanted === undefined ? 20 : 200;
        for (const name of names) {
          const file = componentLogFile(config, name);
          process.stdout.write(`==> ${file} <==\n${tailFile(file, lines)}\n\n`);
        }
        return 0;
      }
      case 'env': {
        const { envFile } = resolveStackConfig();
        try {
          process.stdout.write(readFileSync(envFile, 'utf8'));
          return 0;
        } catch {
          process.stderr.write(`${envFile} does not exist: the stack is not up (run: up)\n`);
          return 1;
        }
      }
      case undefined:
      case 'help':
      case '--help':
        process.stdout.write(stackUsage);
        return command === undefined ? 2 : 0;
      default:
        process.stderr.write(`unknown stack command "${command}"\n\n${stackUsage}`);
        return 2;
    }
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const code = error instanceof StackError ? ` [${error.code}]` : '';
    process.stderr.write(`stack ${command}${code}: ${message}\n`);
    return 1;
  }
}
