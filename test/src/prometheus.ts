import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AlertRuleGroup } from '@rp/deploy/alert-rules';
import { freePort } from '@rp/launcher';
import { waitUntil } from './pipeline.ts';

/** A process Prometheus scrapes, with the labels a ServiceMonitor's scrape would give its series. */
export interface ScrapeTarget {
  /** The job (prometheus-operator names it after the Service). */
  readonly job: string;
  /** Where its `/metrics` is, e.g. `http://127.0.0.1:8080`. */
  readonly url: string;
  readonly labels: Readonly<Record<string, string>>;
}

export interface Sample {
  readonly metric: Readonly<Record<string, string>>;
  readonly value: readonly [number, string];
}

/** An instant query's answer: a vector (the dashboard's and the rules' expressions) or a scalar. */
export type QueryAnswer =
  | { readonly resultType: 'vector'; readonly result: readonly Sample[] }
  | { readonly resultType: 'scalar' | 'string'; readonly result: readonly [number, string] }
  | { readonly resultType: 'matrix'; readonly result: readonly unknown[] };

export interface TargetState {
  readonly labels: Readonly<Record<string, string>>;
  readonly health: 'up' | 'down' | 'unknown';
  readonly lastError: string;
  readonly lastScrape: string;
}

export interface RuleState {
  readonly name: string;
  readonly query: string;
  readonly health: 'ok' | 'err' | 'unknown';
  readonly lastError?: string;
  readonly state?: 'inactive' | 'pending' | 'firing';
  readonly alerts?: readonly { readonly labels: Readonly<Record<string, string>>; readonly state: string }[];
}

export interface RuleGroupState {
  readonly name: string;
  readonly lastEvaluation: string;
  readonly rules: readonly RuleState[];
}

/**
 * A Prometheus server of its own for a test: it scrapes the given targets every second and evaluates the
 * rule groups every second, keeping its data in a temporary folder that `stop()` removes. Its answers
 * come from the HTTP API (`/api/v1/...`), as Grafana's and Alertmanager's do.
 */
export class LivePrometheus {
  readonly url: string;
  private readonly child: ChildProcess;
  private readonly dir: string;

  private constructor(url: string, child: ChildProcess, dir: string) {
    this.url = url;
    this.child = child;
    this.dir = dir;
  }

  static async start(options: {
    readonly binary: string;
    readonly targets: readonly ScrapeTarget[];
    readonly ruleGroups: readonly AlertRuleGroup[];
  }): Promise<LivePrometheus> {
    const dir = mkdtempSync(join(tmpdir(), 'rp-prometheus-'));
    // JSON is YAML: the configuration and the rule file are written as JSON.
    writeFileSync(join(dir, 'rules.yaml'), JSON.stringify({ groups: options.ruleGroups }));
    const config = {
      global: { scrape_interval: '1s', scrape_timeout: '1s', evaluation_interval: '1s' },
      rule_files: [join(dir, 'rules.yaml')],
      scrape_configs: options.targets.map((target) => {
        const url = new URL(target.url);
        return {
          job_name: target.job,
          metrics_path: '/metrics',
          static_configs: [{ targets: [url.host], labels: target.labels }],
        };
      }),
    };
    writeFileSync(join(dir, 'prometheus.yaml'), JSON.stringify(config));
    const port = await freePort();
    const log = openSync(join(dir, 'prometheus.log'), 'a');
    const child = spawn(
      options.binary,
      [
        `--config.file=${join(dir, 'prometheus.yaml')}`,
        `--storage.tsdb.path=${join(dir, 'data')}`,
        `--web.listen-address=127.0.0.1:${port}`,
      ],
      { stdio: ['ignore', log, log] },
    );
    const prometheus = new LivePrometheus(`http://127.0.0.1:${port}`, child, dir);
    // Ready, or the reason it stopped (a configuration or rule file it refused, a port taken).
    const stopped = new Promise<never>((_, reject) =>
      child.once('exit', (code, signal) =>
        reject(new Error(`Prometheus exited (${signal ?? code}):\n${prometheus.log().slice(-2_000)}`)),
      ),
    );
    stopped.catch(() => {});
    try {
      await Promise.race([
        stopped,
        waitUntil(
          async () => {
            const response = await fetch(`${prometheus.url}/-/ready`);
            await response.arrayBuffer();
            return response.ok ? true : undefined;
          },
          'Prometheus ready',
          60_000,
        ),
      ]);
    } catch (error) {
      await prometheus.stop();
      throw error;
    }
    return prometheus;
  }

  /** What the server logged (its warnings name a rule file or a scrape it could not take). */
  log(): string {
    try {
      return readFileSync(join(this.dir, 'prometheus.log'), 'utf8');
    } catch {
      return '';
    }
  }

  private async api<T>(path: string, params: Record<string, string | readonly string[]> = {}): Promise<T> {
    const query = new URLSearchParams();
    for (const [name, value] of Object.entries(params)) {
      for (const one of typeof value === 'string' ? [value] : value) query.append(name, one);
    }
    const response = await fetch(`${this.url}/api/v1/${path}?${query}`);
    const body = (await response.json()) as { status: string; data?: T; error?: string; errorType?: string };
    if (body.status !== 'success' || body.data === undefined) {
      throw new Error(`Prometheus ${path}: ${body.errorType ?? response.status}: ${body.error ?? 'no data'}`);
    }
    return body.data;
  }

  /** An instant query at the server's now; throws with Prometheus's error (a parse or an evaluation error). */
  query(expr: string): Promise<QueryAnswer> {
    return this.api<QueryAnswer>('query', { query: expr });
  }

  /** The values a label takes on the series a selector matches (Grafana's `label_values`). */
  labelValues(label: string, selector: string): Promise<string[]> {
    return this.api<string[]>(`label/${encodeURIComponent(label)}/values`, { 'match[]': [selector] });
  }

  async targets(): Promise<TargetState[]> {
    const data = await this.api<{ activeTargets: TargetState[] }>('targets', { state: 'active' });
    return data.activeTargets;
  }

  async ruleGroups(): Promise<RuleGroupState[]> {
    const data = await this.api<{ groups: RuleGroupState[] }>('rules');
    return data.groups;
  }

  /**
   * Waits until every target was scraped and every rule group evaluated after `since`: what the
   * services counted before it is then in the server's series and in the rules' last answers.
   */
  async caughtUpWith(since: Date): Promise<void> {
    let behind = 'nothing answered yet';
    const fail = (error: unknown) => {
      throw new Error(`${String(error)}; ${behind}`);
    };
    const what = `Prometheus's scrapes and rule evaluations after ${since.toISOString()}`;
    // First every target scraped after `since`; then every group evaluated after the last of those scrapes.
    const scrapedBy = await waitUntil(
      async () => {
        const targets = await this.targets();
        const unscraped = targets.filter((target) => Date.parse(target.lastScrape) <= since.getTime());
        behind = `targets not scraped since: ${unscraped.map((target) => `${target.labels.job} (${target.lastScrape})`).join(', ')}`;
        if (targets.length === 0 || unscraped.length > 0) return undefined;
        return Math.max(...targets.map((target) => Date.parse(target.lastScrape)));
      },
      what,
      60_000,
      250,
    ).catch(fail);
    await waitUntil(
      async () => {
        const unevaluated = (await this.ruleGroups()).filter(
          (group) => Date.parse(group.lastEvaluation) <= scrapedBy,
        );
        behind = `rule groups not evaluated since: ${unevaluated.map((group) => `${group.name} (${group.lastEvaluation})`).join(', ')}`;
        return unevaluated.length === 0 ? true : undefined;
      },
      what,
      60_000,
      250,
    ).catch(fail);
  }

  async stop(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      const exited = new Promise((resolve) => this.child.once('exit', resolve));
      this.child.kill('SIGTERM');
      const timer = setTimeout(() => this.child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}
